"""The graph's counts (graph/reads/stats.py) per label, relationship type and guild."""

from __future__ import annotations

from graph.reads.stats import graph_stats
from graph.store import GraphStore
from tests.support.busy_server import G1, G2, populate


async def test_stats_per_label_and_guild(store: GraphStore) -> None:
    p = await populate(store)
    stats = await graph_stats(store)
    facts = {(r["guild_id"]): r["count"] for r in stats["nodes"] if r["label"] == "Fact"}
    assert facts == {G1: len(p.facts) - 1, G2: 1}
    types = {r["type"] for r in stats["relationships"]}
    assert {
        "ABOUT",
        "MENTIONS",
        "REPORTED_BY",
        "FROM",
        "EXTRACTED_FROM",
        "RELATED_TO",
        "SENT",
        "IN_EPISODE",
        "TOOK_PART_IN",
        "IN_CHANNEL",
        "IN_GUILD",
        "REPLIES_TO",
    } <= types
