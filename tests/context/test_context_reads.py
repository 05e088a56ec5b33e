"""How the reply's reads (queries/context/) are written where it decides their cost on the embedded engine,
and that the channel scope they now read once per fact still hides what a channel may not see."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

import graph.store
import queries
from graph.models import Channel, Guild, Message, User
from graph.store import GraphStore
from tests.support.busy_server import recalled

G, CH = "836000000000000001", "836100000000000001"
ANN = User(id="836200000000000001", name="ann", display_name="Ann")
NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
READS = ("context/facts", "context/conversation", "context/neighbourhood", "context/evidence")
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
    for name in ("context/facts", "context/neighbourhood"):
        code = _code(name)
        assert "EXISTS" not in code, name
        assert code.count("[(f)-[:FROM]->(m:Message) | [m.id, m.channel_id]]") == 1, name


@pytest.mark.parametrize("window", [12, 11])
async def test_the_recalled_span_is_sorted_for_its_window_only_when_larger(
    store: GraphStore, monkeypatch: pytest.MonkeyPatch, window: int
) -> None:
    """context/conversation.cypher searches a span of at most RECALL_WINDOW messages as it is, and sorts a
    larger one for its newest RECALL_WINDOW: at the boundary, every message of the span, or all but the oldest."""
    monkeypatch.setattr(graph.store, "RECALL_WINDOW", window)
    await store.upsert_guild(Guild(id=G, name="g"))
    await store.upsert_channel(Channel(id=CH, guild_id=G, name=CH))
    await store.upsert_users([ANN], G)
    sent = [
        Message(id=f"8364000000000{n:05d}", guild_id=G, channel_id=CH, author_id=ANN.id, content=f"canoe trip {n}",
                created_at=NOW - timedelta(hours=20 - n))
        for n in range(12)
    ]  # fmt: skip
    assert await store.record_messages(sent) == []
    found = await recalled(store, G, CH, "who is up for a canoe trip?", before=NOW)
    assert sorted(m.id for m in found) == sorted(m.id for m in sent[12 - window :])
