"""Counts for the operator and the members: the graph's nodes and edges, one guild's records, and what
extraction cost."""

from __future__ import annotations

from typing import Any

import queries
from graph.session import Tx, run_text
from graph.store import GraphStore


async def graph_stats(store: GraphStore) -> dict[str, Any]:
    """Nodes and relationships per label and guild, and the messages still buffered."""
    nodes = await store.runner.read("store/stats_nodes")
    rels = await store.runner.read("store/stats_relationships")
    buffered = await store.runner.read("store/buffered_counts")
    return {"nodes": nodes, "relationships": rels, "buffered": buffered}


async def guild_counts(store: GraphStore, guild_id: str) -> dict[str, int]:
    """One guild's facts, entities, messages and episodes, counted through their guild_id indexes."""

    async def work(tx: Tx) -> dict[str, int]:
        counts = dict.fromkeys(("facts", "entities", "messages", "episodes"), 0)  # a label not yet made gives no row
        for statement in queries.statements(queries.load("store/guild_counts")):
            for row in await run_text(tx, statement, guild_id=guild_id):
                counts[str(row["kind"])] = int(row["count"])
        return counts

    return await store.runner.read_tx(work)


async def llm_usage(store: GraphStore) -> list[dict[str, Any]]:
    """Per guild: windows extracted and the tokens their calls took (every attempt)."""
    return await store.runner.read("store/llm_usage")


async def windows_waiting(store: GraphStore, max_attempts: int) -> list[dict[str, Any]]:
    """Per guild: windows pending, failed (to be retried) and failed for good (`max_attempts` reached)."""
    return await store.runner.read("store/windows_waiting", max_attempts=max_attempts)
