"""Opt-outs hold where data is written: an operator's opt-out (another process) is honoured by a running
bot at once, a first message that opts out stores nothing of its sender, and an opted-out member's
`<@id>` mention does not stay in what others said."""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from unittest import mock

from neo4j.exceptions import ServiceUnavailable

from bot.listening import Listening
from bot.memory._forget_me import forget_everything
from bot.memory._status import OPTED_OUT
from bot.services import Services
from common import events
from common.settings import ExtractionSettings, WindowSettings
from graph.privacy.guards.consent import opt_out
from graph.store import GraphStore
from ingest.ingestor import Ingestor
from ingest.live import LiveWindows
from ingest.recording import MessageRecorder
from tests.bot.harness import AT, Harness
from tests.support.busy_server import G1, GENERAL, PEOPLE, Populated, populate
from tests.support.cli_process import grapevine
from tests.support.discord_doubles import (
    MockBot,
    MockClientUser,
    MockDMChannel,
    MockGuild,
    MockMember,
    MockMessage,
    MockTextChannel,
    raw_edit,
    sent_texts,
)
from tests.support.erasure_audit import residue_everywhere
from tests.support.scripted import answer, count, cypher
from tests.support.scripted_llm import ScriptedLLMServer

NEWCOMER = "300000000000000077"


async def test_an_opt_out_by_another_process_holds_in_a_running_bot(store: GraphStore, harness: Harness) -> None:
    await populate(store)
    judy = harness.member("judy")
    before = harness.message(judy, "before the operator acted", at=AT)
    await harness.deliver(before)
    assert await count(store, "MATCH (m:Message {id: $id}) RETURN count(m) AS n", id=str(before.id)) == 1

    await opt_out(store, PEOPLE["judy"])  # as `grapevine forget` does, in its own process: the bot's cache is stale
    after = harness.message(judy, "after the operator acted", at=AT + timedelta(minutes=1))
    await harness.deliver(after)
    bob = harness.member("bob")
    mention = harness.message(bob, f"hey <@{PEOPLE['judy']}> you there?", at=AT + timedelta(minutes=2))
    await harness.deliver(mention)

    assert await count(store, "MATCH (m:Message {id: $id}) RETURN count(m) AS n", id=str(after.id)) == 0
    stored = await count(store, "MATCH (m:Message {id: $id}) WHERE m.content CONTAINS $uid RETURN count(m) AS n",
                         id=str(mention.id), uid=PEOPLE["judy"])  # fmt: skip
    assert stored == 0
    assert await count(store, "MATCH (m:Message {id: $id}) RETURN count(m) AS n", id=str(mention.id)) == 1


async def test_a_first_message_opt_out_stores_nothing_of_its_sender(store: GraphStore, harness: Harness) -> None:
    await populate(store)
    newcomer = harness.member("newcomer", id=int(NEWCOMER), display_name="Newcomer")
    ask = harness.message(newcomer, "memory opt-out", to_bot=True, at=AT)
    await harness.deliver(ask)
    assert sent_texts(ask.reply) == [OPTED_OUT]

    assert await count(store, "MATCH (u:User {id: $id}) RETURN count(u) AS n", id=NEWCOMER) == 0
    assert await count(store, "MATCH (m:Message) WHERE m.author_id = $id RETURN count(m) AS n", id=NEWCOMER) == 0
    assert await count(store, "MATCH (m:Message {id: $id}) RETURN count(m) AS n", id=str(ask.id)) == 0


async def test_a_whole_scenario_writes_no_raw_discord_id_to_the_log(
    store: GraphStore, harness: Harness, llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    """Messages in a guild and a DM, a reply, remember, opt-out and forget-me: every log line is scanned."""
    p = await populate(store)
    log = tmp_path / "events.jsonl"
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    charlie, bob = harness.member("charlie"), harness.member("bob")
    try:
        events.configure("INFO", file=log)
        await harness.deliver(harness.message(bob, f"hey <@{PEOPLE['charlie']}> climbing later?", at=AT))
        llm_server.push("Hi Charlie!")
        await harness.deliver(harness.message(charlie, "hello bot", channel=MockDMChannel(recipient=charlie), guild=None, at=AT))
        await harness.deliver(harness.message(bob, f"remember that <@{PEOPLE['charlie']}> climbs", to_bot=True,
                                              at=AT + timedelta(minutes=1), mentions=[charlie]))  # fmt: skip
        await harness.deliver(
            harness.message(harness.member("judy"), "memory opt-out", to_bot=True, at=AT + timedelta(minutes=2))
        )
        await forget_everything(harness.bot.services, PEOPLE["charlie"], ["charlie", "Charlie"])
    finally:
        root.handlers, root.level = handlers, level
    text = log.read_text()
    ids = [*PEOPLE.values(), *(m.id for m in p.messages)]
    assert len(text.splitlines()) >= 5
    assert [i for i in ids if i in text] == []
    assert re.findall(r"dm:\d+", text) == [] and "dm:u-" in text  # the DM scope was logged, pseudonymised


@dataclass
class WaitingJudy:
    """A running bot that records in ticks (messages wait in memory) and extracts with the scripted LLM: Judy's
    message and Bob's reply said in #general, both waiting; each prompt the LLM is sent, as it was sent."""

    clock: list[datetime]
    live: LiveWindows
    listening: Listening
    recorder: MessageRecorder
    general: MockTextChannel
    judy: MockMember
    said: MockMessage
    reply: MockMessage
    prompts: list[str]


async def _judy_waiting(store: GraphStore, services: Services, llm_server: ScriptedLLMServer) -> WaitingJudy:
    await populate(store)
    clock = [datetime.now(UTC)]
    ingestor = Ingestor(store, services.llm, ExtractionSettings(batch_messages=1), WindowSettings())
    recorder = MessageRecorder(store, tick_seconds=3600)  # never ticks by itself: only a window close writes
    live = LiveWindows(store, ingestor, services.consent, WindowSettings(), clock=lambda: clock[0], recorder=recorder)
    listening = Listening(MockBot(services=replace(services, ingestor=ingestor, live=live), user=MockClientUser(id=999)))
    general = MockTextChannel(id=int(GENERAL), name="general", guild=MockGuild(id=int(G1), name="Book Club"))
    judy = MockMember(id=int(PEOPLE["judy"]), name="judy", display_name="Judy")
    bob = MockMember(id=int(PEOPLE["bob"]), name="bob", display_name="Bob")
    said = MockMessage(author=judy, content="my secret garden is behind the old mill", channel=general, created_at=clock[0])
    reply = MockMessage(author=bob, content="sounds lovely, see you at book club", channel=general, created_at=clock[0])
    for message in (said, reply):
        await listening.recorder.on_message(message, 999)
    prompts: list[str] = []

    def model(request: dict[str, Any]) -> dict[str, Any]:
        prompts.append(json.dumps(request["messages"]))
        return answer("Bob is going to book club.")

    llm_server.responder = model
    return WaitingJudy(clock, live, listening, recorder, general, judy, said, reply, prompts)


async def test_a_cli_opt_out_keeps_messages_buffered_in_memory_out_of_the_graph_and_the_prompt(
    store: GraphStore, services: Services, llm_server: ScriptedLLMServer
) -> None:
    """The bot records in ticks (messages wait in memory) and extracts with an LLM; the operator opts Judy
    out from the CLI (another process) while her message waits: the window that closes leaves it out."""
    w = await _judy_waiting(store, services, llm_server)
    clock, live, listening, recorder, general, judy = w.clock, w.live, w.listening, w.recorder, w.general, w.judy
    said, reply, prompts = w.said, w.reply, w.prompts
    assert recorder.pending() == 2 and live.buffer.buffered() == 2

    await opt_out(store, PEOPLE["judy"])  # as `grapevine forget` does from its own process: the bot is not told
    assert services.consent.allowed(PEOPLE["judy"])  # the bot's cache does not know yet
    clock[0] += timedelta(hours=6)
    await live.tick()
    await live.drain()

    assert len(prompts) == 1 and "secret garden" not in prompts[0] and "book club" in prompts[0]
    assert await count(store, "MATCH (m:Message {id: $id}) RETURN count(m) AS n", id=str(said.id)) == 0
    assert await count(store, "MATCH (m:Message {id: $id}) RETURN count(m) AS n", id=str(reply.id)) == 1
    assert await count(store, "MATCH (e:Episode) WHERE e.key CONTAINS $id RETURN count(e) AS n", id=str(said.id)) == 0
    assert not services.consent.allowed(PEOPLE["judy"])  # and it knows now: her next message is not taken
    later = MockMessage(author=judy, content="anyone there?", channel=general, created_at=clock[0])
    assert await listening.recorder.on_message(later, 999) is False


async def test_the_real_cli_forget_in_another_process_holds_in_the_running_bot(
    store: GraphStore, services: Services, llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    """`grapevine forget JUDY --yes` runs as its own process against the bot's database while Judy's last
    message waits in the bot's memory: no restart, and it reaches neither the graph nor a prompt."""
    w = await _judy_waiting(store, services, llm_server)
    clock, live, said, prompts = w.clock, w.live, w.said, w.prompts
    done = await grapevine(store, tmp_path, "forget", PEOPLE["judy"], "--yes")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "residue audit: 0 nodes" in done.stdout

    clock[0] += timedelta(hours=6)
    await live.tick()
    await live.drain()

    assert len(prompts) == 1 and "secret garden" not in prompts[0] and "book club" in prompts[0]
    assert await count(store, "MATCH (m:Message {id: $id}) RETURN count(m) AS n", id=str(said.id)) == 0
    assert await count(store, "MATCH (e:Episode) WHERE e.key CONTAINS $id RETURN count(e) AS n", id=str(said.id)) == 0
    assert await residue_everywhere(store, PEOPLE["judy"]) == []
    assert not services.consent.allowed(PEOPLE["judy"])  # the bot knows now, without a restart


async def _left(store: GraphStore) -> str:
    rows = await cypher(store, "MATCH (n) RETURN properties(n) AS p UNION ALL MATCH ()-[r]->() RETURN properties(r) AS p")
    return "\n".join(str(v) for r in rows for v in r["p"].values())


def _said(p: Populated, text: str) -> str:
    return next(m.id for m in p.messages if m.content == text)


async def test_an_opted_out_members_edit_removes_the_old_text_and_stores_none_of_the_new(
    store: GraphStore, harness: Harness
) -> None:
    """Bob said where he lives, opted out, then edited it away: nothing of the old text stays stored or recalled,
    and nothing of the new one is stored (not in the graph, not in the file of changes kept through an outage)."""
    p = await populate(store)
    bob = harness.member("bob")
    ask = harness.message(bob, "memory opt-out", to_bot=True, at=AT)
    await harness.deliver(ask)
    assert sent_texts(ask.reply) == [OPTED_OUT]
    said = _said(p, "I live in Berlin btw")
    edited = MockMessage(id=int(said), content="I moved, ask me in person", edited_at=AT, author=bob, channel=harness.general)
    await harness.listening.on_raw_message_edit(raw_edit(edited))

    everything = await _left(store)
    assert "Berlin" not in everything and "ask me in person" not in everything
    assert await count(store, "MATCH (f:Fact {uuid: $u}) RETURN count(f) AS n", u=p.facts["bob_berlin"]) == 0
    assert await count(store, "MATCH (f:Fact {uuid: $u}) RETURN count(f) AS n", u=p.facts["frank_engaged"]) == 1
    pending = harness.listening.changes.pending
    assert pending.load() == [] and (not pending.path.exists() or "ask me in person" not in pending.path.read_text())
    alice = harness.member("alice")
    question = harness.message(alice, f"what do you know about {bob.mention}?", to_bot=True, mentions=[bob])
    await harness.deliver(question)
    assert "Berlin" not in "\n".join(sent_texts(question.reply))


async def test_an_edit_kept_through_an_outage_stores_nothing_new_once_its_author_opted_out(
    store: GraphStore, harness: Harness
) -> None:
    """An edit waits on disk while the graph is down; meanwhile the operator opts its author out (another process):
    applied later, it removes the old text and stores none of the new."""
    p = await populate(store)
    said = _said(p, "I live in Berlin btw")
    edited = MockMessage(
        id=int(said), content="I live in Lisbon now", edited_at=AT, author=harness.member("bob"), channel=harness.general
    )
    down = ServiceUnavailable("the engine is gone")
    with mock.patch.object(store.runner, "write", side_effect=down), mock.patch.object(store.runner, "read", side_effect=down):
        await harness.listening.on_raw_message_edit(raw_edit(edited))
    assert [c["op"] for c in harness.listening.changes.pending.load()] == ["edit"]
    await opt_out(store, PEOPLE["bob"])  # the bot's cache does not know
    assert await harness.listening.changes.apply_pending() == 1
    everything = await _left(store)
    assert "Berlin" not in everything and "Lisbon" not in everything
    assert harness.listening.changes.pending.load() == []


async def test_an_edit_that_mentions_an_opted_out_member_keeps_no_trace_of_their_id(store: GraphStore, harness: Harness) -> None:
    p = await populate(store)
    await opt_out(store, PEOPLE["judy"])  # by another process: the bot's cache does not know
    said = _said(p, "Austin!")
    edited = MockMessage(
        id=int(said), content=f"Austin! ask <@{PEOPLE['judy']}>", edited_at=AT, author=harness.member("alice"),
        channel=harness.general,
    )  # fmt: skip
    await harness.listening.on_raw_message_edit(raw_edit(edited))
    [stored] = await cypher(store, "MATCH (m:Message {id: $id}) RETURN m.content AS content", id=said)
    assert stored["content"].startswith("Austin! ask ") and PEOPLE["judy"] not in stored["content"]
