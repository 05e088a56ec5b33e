"""When deleted records leave the engine's files. An erasure (forget-me, retention) marks the graph as due
for a purge in its own transaction; `grapevine forget` and `grapevine retention --apply` purge at once, and
the bot's next upkeep pass purges whatever is due, so the bound is MEMORY_UPKEEP_INTERVAL_HOURS (the pass
also runs when the bot starts). The purge itself is the engine's: ArcadeDB rebuilds its indexes
(graph/engines/arcadedb_purge.py), Neo4j has nothing to do."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

import queries
from graph.models import iso
from graph.session import Tx, run
from graph.store import GraphStore


@dataclass
class DuePurge:
    since: str | None = None  # when the first erasure waiting was committed; None: nothing was due
    erasures: int = 0
    failed: dict[str, str] = field(default_factory=dict)  # indexes not rebuilt, with why
    seconds: float = 0.0


async def mark_due(tx: Tx, now: datetime) -> None:
    await run(tx, "store/purge_due_mark", now=iso(now))


async def purge_due(store: GraphStore) -> DuePurge:
    """Erasures waiting for the purge of the engine's files (`since` is None when none wait)."""
    rows = await store.runner.read("store/purge_due_read")
    return DuePurge(str(rows[0]["since"]), int(rows[0]["erasures"])) if rows else DuePurge()


async def purge_if_due(store: GraphStore) -> DuePurge:
    """Purge the engine's files when an erasure waits for it; `since` is None when nothing was due."""
    due = await purge_due(store)
    if due.since is None:
        return due
    started = datetime.now(UTC)
    due.failed = await purge_deleted(store)
    due.seconds = (datetime.now(UTC) - started).total_seconds()
    if not due.failed:  # the mark stays when another erasure came in meanwhile: the next pass purges again
        await store.runner.write_one("store/purge_due_clear", erasures=due.erasures)
    return due


async def purge_deleted(store: GraphStore) -> dict[str, str]:
    """Rebuild what keeps deleted records on disk, then re-create any index a failed rebuild lost;
    returns the indexes not rebuilt, with why."""
    async with store.runner.gate.alone():  # every writer of the engine waits meanwhile, in every process
        purge = await store.engine.purge_deleted()
        for statement in queries.statements(queries.load("schema/constraints")):
            await store.runner.statement(statement)
    return purge.failed
