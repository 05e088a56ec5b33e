"""How the reply's reads (queries/context/) are written where it decides their cost on the embedded engine,
and that the channel scope they now read once per fact still hides what a channel may not see."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

import queries
from common.settings import RecallTuning
from graph.keys import channel_time
from graph.models import Channel, Guild, Message, User
from graph.reads.context import search_patterns
from graph.store import GraphStore
from graph.writes.discord_records import upsert_channel, upsert_guild, upsert_users
from graph.writes.messages import record_messages
from tests.support.busy_server import recalled

G, CH = "836000000000000001", "836100000000000001"
ANN = User(id="836200000000000001", name="ann", display_name="Ann")
NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
READS = (
    "context/facts",
    "context/fact_lookup",
    "context/conversation",
    "context/recalled",
    "context/second_round",
    "context/passages",
    "context/model_channel",
)
_CLAUSE = re.compile(r"\b(OPTIONAL MATCH|MATCH|CALL|UNION)\b")
_ORDER_BY = re.compile(r"\bORDER BY\s+(.+?)(?:\s+LIMIT\b|$)", re.MULTILINE)


def _code(name: str) -> str:
    return "\n".join(line.split("//")[0] for line in queries.load(name).splitlines())


def test_every_sort_of_a_reply_read_is_on_projected_keys() -> None:
    """ArcadeDB evaluates ORDER BY's keys at every comparison: a property read there (`f.importance`) is
    repeated n log n times for a member with thousands of facts, a variable projected before it is not."""
    sorts = [(name, keys) for name in READS for keys in _ORDER_BY.findall(_code(name))]
    assert len(sorts) >= 12  # every read sorts somewhere: the pattern still finds them
    on_properties = [(name, keys) for name, keys in sorts if re.search(r"\w\.\w", keys)]
    assert on_properties == []


def test_channel_scope_reads_each_facts_sources_once_without_subqueries() -> None:
    """The scope (a fact's sources, a reporter's message) comes from one pattern comprehension per fact:
    EXISTS subqueries per fact and per reporter cost ArcadeDB about a third of the facts read."""
    code = _code("context/facts")
    assert "EXISTS" not in code
    assert code.count("[(f)-[:FROM]->(m:Message) | {id: m.id, channel_id: m.channel_id}]") == 1


def test_every_reply_read_returns_named_fields() -> None:
    """What a reply reads comes as maps read by name: a list read by position (a fact as 12 positions) breaks
    silently when a field is added or moved."""
    names = sorted(path.stem for path in (queries.ROOT / "context").glob("*.cypher"))
    assert len(names) == 13
    for name in names:
        code = _code(f"context/{name}")
        assert "collect([" not in code and not re.search(r"\[\d+\]", code), name


def test_recall_reads_the_graph_only_through_graph_functions() -> None:
    """recall/ decides what to ask; the statements are run by graph/ (graph/context_reads.py), given the store."""
    for path in sorted((queries.ROOT.parent / "recall").glob("*.py")):
        assert ".runner" not in path.read_text(encoding="utf-8"), path.name


def test_no_reply_read_searches_the_full_text_of_facts() -> None:
    """ArcadeDB's full-text search scores every posting of each word before it keeps its best hits, so
    a common word ("coffee") cost a reply 10-40 ms of engine CPU at 100,000 facts and about ten times that at
    1,000,000 (the slowest twentieth of replies). Only entity names are searched so; facts come by the graph."""
    assert [name for name in READS if "'fact_text'" in _code(name)] == []


@pytest.mark.parametrize("window", [12, 11])
async def test_the_recalled_span_is_cut_to_its_newest_window(store: GraphStore, window: int) -> None:
    """context/recalled.cypher searches the span's newest `RecallTuning.span_messages` messages: at the boundary,
    every message of the span, or all but the oldest."""
    await upsert_guild(store, Guild(id=G, name="g"))
    await upsert_channel(store, Channel(id=CH, guild_id=G, name=CH))
    await upsert_users(store, [ANN], G)
    sent = [
        Message(id=f"8364000000000{n:05d}", guild_id=G, channel_id=CH, author_id=ANN.id, content=f"canoe trip {n}",
                created_at=NOW - timedelta(hours=20 - n))
        for n in range(12)
    ]  # fmt: skip
    assert await record_messages(store, sent) == []
    tuning = RecallTuning(span_messages=window)
    found = await recalled(store, G, CH, "who is up for a canoe trip?", before=NOW, tuning=tuning)
    assert sorted(m.id for m in found) == sorted(m.id for m in sent[12 - window :])


def test_every_index_range_of_a_reply_read_is_in_a_statement_planned_by_cost() -> None:
    """ArcadeDB ranges over an index (channel_time >= .. < ..) only in a statement whose one clause reading the
    graph is its first MATCH; after another MATCH, an OPTIONAL MATCH or inside a CALL subquery it plans without
    indexes and reads every message of the graph (the recalled search did, inside the conversation read:
    10,000 rows per reply at 100,000 facts, 100,000 at 1,000,000)."""
    ranged = [name for name in READS if re.search(r"\.channel_time\s*>=", _code(name))]
    assert ranged == ["context/recalled"]
    for name in ranged:
        clauses = _CLAUSE.findall(_code(name))
        assert clauses == ["MATCH"], (name, clauses)
        assert _code(name).lstrip().startswith("MATCH (m:Message)\nWHERE m.channel_time >="), name


@pytest.fixture
def arcade_only(request: pytest.FixtureRequest) -> None:
    if request.node.callspec.params.get("store") != "arcadedb":
        pytest.skip("PROFILE's plan text is ArcadeDB's")


async def _profile(store: GraphStore, name: str, **params: Any) -> tuple[str, list[int]]:
    _, summary, _ = await store.driver.execute_query("PROFILE " + queries.load(name), params, database_=store.engine.database)
    assert summary.profile is not None
    text: str = summary.profile["args"]["string-representation"]
    return text, [int(n.replace(",", "")) for n in re.findall(r"μs, ([\d,]+) rows\)", text)]


@pytest.mark.usefixtures("arcade_only")
async def test_the_recalled_search_reads_one_index_range_of_the_channels_recent_messages(store: GraphStore) -> None:
    """PROFILE: the search ranges over message_channel_time and reads the span's messages only, none of the
    channel's older ones nor another channel's (the guild's history does not reach it)."""
    other = "836100000000000002"
    await upsert_guild(store, Guild(id=G, name="g"))
    for cid in (CH, other):
        await upsert_channel(store, Channel(id=cid, guild_id=G, name=cid))
    await upsert_users(store, [ANN], G)

    def sent(n: int, channel: str, at: datetime) -> Message:
        return Message(id=f"8365{n:014d}", guild_id=G, channel_id=channel, author_id=ANN.id, content=f"canoe trip {n}",
                       created_at=at)  # fmt: skip

    tuning = RecallTuning()
    old = [sent(n, CH, NOW - tuning.span - timedelta(hours=n + 1)) for n in range(60)]
    beside = [sent(100 + n, other, NOW - timedelta(hours=n + 1)) for n in range(60)]
    recent = [sent(200 + n, CH, NOW - timedelta(hours=n + 1)) for n in range(7)]
    assert await record_messages(store, old + beside + recent) == []
    text, rows = await _profile(
        store,
        "context/recalled",
        guild_id=G,
        recall=20,
        near=tuning.neighbour_matches,
        **search_patterns(["canoe"], tuning.rarity),
        recall_from=channel_time(CH, NOW - tuning.span),
        recall_to=channel_time(CH, NOW),
        recall_window=tuning.span_messages,
    )
    assert "NodeIndexRangeScan(m:Message) [index=message_channel_time" in text, text
    assert "Cost-Based Optimizer" in text and "NodeByLabelScan" not in text and "MATCH NODE (m:Message) [filter" not in text
    # the span's 7 messages, each match with a message each side of it: none of the 120 older or beside
    assert max(rows) <= 3 * len(recent), text
    found = await recalled(store, G, CH, "canoe", before=NOW)
    assert sorted(m.id for m in found) == sorted(m.id for m in recent)
    assert {m.author_name for m in found} == {"Ann"}
