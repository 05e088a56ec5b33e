"""How the reply's reads (queries/context/) are written where it decides their cost on the embedded engine,
and that the channel scope they now read once per fact still hides what a channel may not see."""

from __future__ import annotations

import re

import queries

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
