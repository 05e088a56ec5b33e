"""Counts for the operator and the members: the graph's nodes and edges, one guild's records, and what
extraction cost. A guild's totals (facts, entities, messages, episodes) as `memory status` and `grapevine stats`
read them are the counts its Guild node keeps as the writes happen (graph/counts.py), one node read whatever the
guild holds; `guild_counts` is the recount they are checked against and repaired from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graph.changes import touches
from graph.counts import kept, recount, set_recounted
from graph.session import Tx
from graph.store import GraphStore


async def graph_stats(store: GraphStore) -> dict[str, Any]:
    """Nodes and relationships per label and guild, and the messages still buffered."""
    nodes = await store.runner.read("store/stats_nodes")
    rels = await store.runner.read("store/stats_relationships")
    buffered = await store.runner.read("store/buffered_counts")
    return {"nodes": nodes, "relationships": rels, "buffered": buffered}


async def guild_counts(store: GraphStore, guild_id: str) -> dict[str, int]:
    """One guild's facts, entities, messages and episodes, counted now through their guild_id indexes (a read per
    record: what the kept counts of `guild_totals` are checked against)."""
    return await store.runner.read_tx(lambda tx: recount(tx, guild_id))


async def llm_usage(store: GraphStore) -> list[dict[str, Any]]:
    """Per guild: windows extracted and the tokens their calls took (every attempt)."""
    return await store.runner.read("store/llm_usage")


async def windows_waiting(store: GraphStore, max_attempts: int) -> list[dict[str, Any]]:
    """Per guild: windows pending, failed (to be retried) and failed for good (`max_attempts` reached)."""
    return await store.runner.read("store/windows_waiting", max_attempts=max_attempts)


async def guild_totals(store: GraphStore, guild_id: str) -> dict[str, int]:
    """The guild's kept counts: one node read; when they are not kept yet, recounted and kept from here on."""
    [row] = await store.runner.read_plain("store/kept_counts", guild_id=guild_id)
    found = kept(row)
    if found is not None:
        return found
    if row.get("guild_id") is None:  # no guild node to keep them on (nothing stored of it, or only older rows)
        return await store.runner.read_tx(lambda tx: recount(tx, guild_id))

    async def work(tx: Tx) -> dict[str, int]:
        touches([guild_id], facts=False, messages=())
        return await set_recounted(tx, guild_id)

    return await store.runner.write(work)


async def backfill(store: GraphStore) -> int:
    """Every guild whose counts are not kept yet recounted and kept, each in its own transaction; how many."""
    runner = store.runner
    guilds = [str(r["id"]) for r in await runner.read("schema/guilds_uncounted")]
    for guild_id in guilds:

        async def work(tx: Tx, guild_id: str = guild_id) -> dict[str, int]:
            touches([guild_id], facts=False, messages=())  # only the counts change: no read model reloads
            return await set_recounted(tx, guild_id)

        await runner.write(work)
    return len(guilds)


async def kept_totals(store: GraphStore) -> list[dict[str, Any]]:
    """Every guild's kept counts, one row each (None where not kept yet: `recount_every_guild` sets them)."""
    return await store.runner.read("store/every_guild_counts")


@dataclass(frozen=True)
class Recounted:
    guild_id: str
    kept: dict[str, int] | None  # None: not kept yet
    counted: dict[str, int]
    repaired: bool = False

    @property
    def honest(self) -> bool:
        return self.kept == self.counted


async def recount_every_guild(store: GraphStore, repair: bool = False) -> list[Recounted]:
    """Each guild's kept counts beside a recount; with `repair`, a guild whose counts differ (or are not kept)
    gets the recount, in one transaction with it."""
    found: list[Recounted] = []
    for row in await store.runner.read("store/every_guild_counts"):
        guild_id, held = str(row["guild_id"]), kept(row)
        counted = await guild_counts(store, guild_id)
        done = Recounted(guild_id, held, counted)
        if repair and not done.honest:

            async def work(tx: Tx, guild_id: str = guild_id) -> dict[str, int]:
                touches([guild_id], facts=False, messages=())
                return await set_recounted(tx, guild_id)

            done = Recounted(guild_id, held, await store.runner.write(work), repaired=True)
        found.append(done)
    return found
