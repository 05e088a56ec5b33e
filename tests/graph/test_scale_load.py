"""bench.scale loads its generated guild as generate() describes it: a superseded fact is created closed (label
Closed, invalid_at and expired_at its successor's valid_at) and linked once by SUPERSEDES, every other fact open."""

from __future__ import annotations

import pytest

from bench.scale import generate, load
from graph.session import run_text
from graph.store import GraphStore


@pytest.mark.parametrize("store", ["arcadedb"], indirect=True)
async def test_the_loaded_guild_closes_exactly_the_superseded_facts(store: GraphStore) -> None:
    g = generate(0.2)
    assert g.supersessions  # the generated guild has some
    steps = await load(store, g)
    assert dict((what, rows) for what, rows, _ in steps)["facts (REPORTED_BY, FROM, EXTRACTED_FROM)"] == len(g.facts)
    found = await store.runner.read_tx(
        lambda tx: run_text(
            tx,
            "MATCH (f:Fact) OPTIONAL MATCH (n:Fact)-[:SUPERSEDES]->(f) "
            "RETURN f.uuid AS uuid, f:Closed AS closed, toString(f.invalid_at) AS invalid_at, "
            "toString(f.expired_at) AS expired_at, toString(f.valid_at) AS valid_at, collect(n.uuid) AS by, "
            "COUNT { (f)-[:REPORTED_BY]->(:User) } AS reporters, COUNT { (f)-[:FROM]->(:Message) } AS sources, "
            "COUNT { (f)-[:EXTRACTED_FROM]->(:Episode) } AS episodes",
        )
    )
    facts = {r["uuid"]: r for r in found}
    assert len(facts) == len(g.facts)
    closed_by = {s["old_uuid"]: s["new_uuid"] for s in g.supersessions}
    for uuid, row in facts.items():
        assert (row["reporters"], row["sources"], row["episodes"]) == (1, 1, 1)
        if uuid in closed_by:
            successor = facts[closed_by[uuid]]
            assert row["closed"] and row["by"] == [closed_by[uuid]]
            assert row["invalid_at"] == row["expired_at"] == successor["valid_at"]
        else:
            assert not row["closed"] and row["by"] == [] and row["invalid_at"] is None and row["expired_at"] is None
