"""Three ways channel scope broke once routine life happened, on a graph with a restricted #staff beside a shared
#general (tests/support/topics_graph.py): retention removed a #staff fact's messages and every read took the fact
for one said anywhere; a timeline showed the text of a #staff fact on the other side of a supersession; and the
MCP server's `run_query who_knows` returned an opted-out member. Each is read the way a member or an assistant
reads it: the reply context, the MCP tools (in-process, through the SDK's own tool call), the timeline the
members' `/memory timeline` and `grapevine timeline --channel` print."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from mcp.server.mcpserver.exceptions import ToolError

from common.settings import ContextSettings
from grapevine.mcp_server import Reader, build
from graph.models import EpisodeWrite
from graph.privacy import channels
from graph.privacy.erasure import forgettable_facts
from graph.privacy.export import export_member
from graph.privacy.guards.consent import keyed
from graph.privacy.opted_out import opted_out_reader
from graph.privacy.retention import apply_retention
from graph.reads import topics
from graph.reads.facts import facts_about
from graph.store import GraphStore
from graph.writes.episodes import write_episode
from recall.assemble import ContextRequest
from recall.gather import build_context
from tests.support.busy_server import G1, GENERAL, PEOPLE, U
from tests.support.topics_graph import NOW, STAFF, Topical, topical

VAULT = "Charlie says the vault code is 4417"
FIRED = "Bob will be fired next week"
TOKYO = "Bob is secretly moving to Tokyo for the merger"


def _reader(store: GraphStore) -> Reader:
    return Reader(store, G1, opted_out_reader(store, keyed(store)))


async def _tool(store: GraphStore, name: str, arguments: dict[str, Any]) -> Any:
    called = await build(_reader(store)).call_tool(name, arguments)
    assert not getattr(called, "is_error", False), called
    data = getattr(called, "structured_content", None)
    return data["result"] if isinstance(data, dict) and set(data) == {"result"} else data


async def _context(store: GraphStore, channel_id: str, text: str) -> str:
    req = ContextRequest(guild_id=G1, channel_id=channel_id, author_id=PEOPLE["bob"], message_text=text, message_id=None, at=NOW)
    ctx = await build_context(store, req, ContextSettings())
    return "\n".join(line for part in ctx.parts for line in part.lines)


async def _staff_fact(t: Topical, label: str, text: str, said: str, days_ago: int, **kwargs: Any) -> None:
    p = t.p
    msg = await p.say(STAFF, "charlie", said, NOW - timedelta(days=days_ago))
    key = await p.episode(STAFF, [msg])
    about = [U("charlie")] if label == "vault" else [U("bob")]
    fact = p.fact(label, text, about, msg, importance=9, **kwargs)
    await write_episode(p.store, EpisodeWrite(key=key, guild_id=G1, facts=(fact,)))


async def test_retention_keeps_a_private_fact_private(store: GraphStore) -> None:
    t = await topical(store)
    await _staff_fact(t, "vault", VAULT, "the vault code is 4417, keep it here", days_ago=60)
    await _staff_fact(t, "fired", FIRED, "bob will be fired next week, not a word", days_ago=60)
    question = "what do you know about charlie and the vault code, and about bob?"
    assert VAULT in await _context(store, STAFF, question)
    assert VAULT not in await _context(store, GENERAL, question)
    exported = await export_member(store, PEOPLE["bob"])
    assert exported is not None and FIRED not in repr(exported) and exported["withheld"]["facts"] == 1

    done = await apply_retention(store, messages_days=30, closed_facts_days=0, now=NOW)
    assert done.messages >= 1

    shared = await _context(store, GENERAL, question)
    assert VAULT not in shared and FIRED not in shared
    assert VAULT in await _context(store, STAFF, question)  # where it was told it is still known
    exported = await export_member(store, PEOPLE["bob"])  # a fact about Bob told where he cannot read
    assert exported is not None and FIRED not in repr(exported) and exported["withheld"]["facts"] == 1
    # "forget that I will be fired" asked in #general forgets it, and does not read it out there
    for channel, shown in ((GENERAL, False), (STAFF, True)):
        rows = await forgettable_facts(store, G1, PEOPLE["bob"], channel)
        assert [r["shown"] for r in rows if r["text"] == FIRED] == [shown]
    facts = await _tool(store, "facts", {"subject": PEOPLE["charlie"]})
    assert VAULT not in repr(facts)
    about = await facts_about(store, G1, user_ids=[PEOPLE["charlie"]], channel_id=GENERAL, now=NOW)
    assert VAULT not in [f.text for f in about]
    assert VAULT in [f.text for f in await facts_about(store, G1, user_ids=[PEOPLE["charlie"]], now=NOW)]  # operators


async def test_a_supersession_shows_the_other_side_only_where_it_may_be_seen(store: GraphStore) -> None:
    t = await topical(store)
    await _staff_fact(t, "tokyo", TOKYO, "bob is moving to tokyo for the merger, don't tell", days_ago=0,
                      supersedes=["bob_munich"])  # fmt: skip

    mcp_line = await _tool(store, "timeline", {"subject": "bob"})
    assert "Munich" in repr(mcp_line) and TOKYO not in repr(mcp_line)
    rows = await _tool(store, "run_query", {"name": "topic_timeline", "params": {"user_id": PEOPLE["bob"]}})
    assert "Munich" in repr(rows) and TOKYO not in repr(rows)
    for channel in (GENERAL, ""):  # `/memory timeline` in #general, `grapevine timeline --channel GENERAL`
        line = await topics.timeline(
            store, G1, user_id=PEOPLE["bob"], channel_id=channel,
            opted_out=_reader(store).opted_out,
        )  # fmt: skip
        assert [f.text for f in line] == ["Bob lives in Berlin", "Bob moved to Munich"]
        assert TOKYO not in repr(line)
    staff = await topics.timeline(store, G1, user_id=PEOPLE["bob"], channel_id=STAFF, opted_out=_reader(store).opted_out)
    munich = next(f for f in staff if f.text == "Bob moved to Munich")
    assert [r.text for r in munich.superseded_by] == [TOKYO]  # in #staff both sides may be seen


async def test_mcp_run_query_leaves_opted_out_members_out(store: GraphStore) -> None:
    await topical(store)
    rows = await _tool(store, "run_query", {"name": "who_knows", "params": {"topic": "kubernetes"}})
    assert {r["member"] for r in rows} == {"Alice", "Eve"}
    assert PEOPLE["dave"] not in repr(rows) and "helm charts" not in repr(rows)


async def test_a_channel_made_public_stays_private_until_a_moderator_widens_it(store: GraphStore) -> None:
    t = await topical(store)
    await _staff_fact(t, "vault", VAULT, "the vault code is 4417, keep it here", days_ago=1)
    question = "what do you know about charlie and the vault code?"
    assert await channels.set_visibility(store, G1, STAFF, "public") == "private"  # Discord's view widened: not memory
    assert VAULT not in await _context(store, GENERAL, question)
    assert await channels.set_visibility(store, G1, GENERAL, "restricted") == "private"  # narrowing is at once
    assert await channels.set_visibility(store, G1, GENERAL, "public") == "private"
    assert await channels.set_mode(store, G1, STAFF, "shared")  # a moderator's choice
    assert VAULT in await _context(store, GENERAL, question)


async def test_an_opted_out_member_is_invisible_by_id_in_the_mcp_tools_and_the_topic_reads(store: GraphStore) -> None:
    """Dave opted out: asked for by id (or by his name), the MCP tools and the topic timeline every command reads
    show nothing about him, as an unknown subject."""
    await topical(store)
    dave = PEOPLE["dave"]
    assert any(f.text.startswith("Dave got a job offer") for f in await facts_about(store, G1, user_ids=[dave]))  # stored
    never_stored = "123456789012345678"
    for tool in ("facts", "timeline"):
        answer = await _tool(store, tool, {"subject": dave})
        assert answer == await _tool(store, tool, {"subject": never_stored})  # as for an id never stored
        assert all(set(row) == {"note"} for row in answer) and dave not in repr(answer)
        with pytest.raises(ToolError) as unknown:
            await build(_reader(store)).call_tool(tool, {"subject": "Dave"})
        assert "no member or entity called 'Dave'" in str(unknown.value)  # as for a name no one has
    for channel in (None, "", GENERAL):
        line = await topics.timeline(store, G1, user_id=dave, channel_id=channel, opted_out=_reader(store).opted_out)
        assert line == [], channel
    rows = await _tool(store, "run_query", {"name": "topic_timeline", "params": {"user_id": dave}})
    assert rows == await _tool(store, "run_query", {"name": "topic_timeline", "params": {"user_id": never_stored}})
    assert all(set(row) == {"note"} for row in rows) and dave not in repr(rows)
