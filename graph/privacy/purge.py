"""When deleted records leave the engine's files. An erasure (forget-me, retention) marks the graph as due
for a purge in its own transaction; `grapevine forget` and `grapevine retention --apply` purge at once, and
the bot's next upkeep pass purges whatever is due, so the bound is MEMORY_UPKEEP_INTERVAL_HOURS (the pass
also runs when the bot starts). The purge itself is the engine's: ArcadeDB rebuilds its indexes
(graph/engines/arcadedb_purge.py), Neo4j has nothing to do."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from graph.models import iso
from graph.session import Runner, Tx, run


@dataclass
class DuePurge:
    since: str | None = None  # when the first erasure waiting was committed; None: nothing was due
    erasures: int = 0
    failed: dict[str, str] = field(default_factory=dict)  # indexes not rebuilt, with why
    seconds: float = 0.0


async def mark_due(tx: Tx, now: datetime) -> None:
    await run(tx, "store/purge_due_mark", now=iso(now))


async def due(runner: Runner) -> DuePurge:
    rows = await runner.read("store/purge_due_read")
    return DuePurge(str(rows[0]["since"]), int(rows[0]["erasures"])) if rows else DuePurge()


async def clear(runner: Runner, erasures: int) -> None:
    """Clear the mark, unless another erasure came in meanwhile (the next pass purges again)."""
    await runner.write_one("store/purge_due_clear", erasures=erasures)
