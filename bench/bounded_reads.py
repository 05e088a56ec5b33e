"""The reads of `memory status` and the upkeep pass at two sizes of the same guild, in CPU time.

    python -m bench.bounded_reads [--sizes 1 10] [--repeat 20] [--quick]

Each size is generated and loaded by bench.scale on a fresh embedded engine. Per operation it prints the CPU
the engine's process spent (utime + stime from /proc) plus this process's CPU (time.process_time), per call,
which the load of a shared machine does not inflate as it does wall-clock time, and the ratio between sizes.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import queries
from bench.common import TempArcadeDB, console, cpu_counters, machine_note, quiet_logs, table
from bench.queries import FILES, bench_read, bench_write
from bench.scale_guild import GUILD, NOW, generate, load
from graph import transactions
from graph.models import EpisodeStatus
from graph.privacy.channels import modes as channel_modes
from graph.privacy.user_cap import enforce_user_cap
from graph.reads.activity import guild_time, recent_activity
from graph.reads.backlog import episodes_by_status, messages_before
from graph.reads.operator import get_query, run_operator_query
from graph.reads.stats import guild_counts
from graph.session import Tx, run_text
from graph.store import GraphStore

TICK = os.sysconf("SC_CLK_TCK")
Op = Callable[[], Awaitable[Any]]


def _engine_cpu(pid: int | None) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime


async def _cpu_ms(pid: int | None, op: Op, repeat: int) -> float:
    for _ in range(3):
        await op()
    engine, own = _engine_cpu(pid), time.process_time()
    for _ in range(repeat):
        await op()
    return (_engine_cpu(pid) - engine + time.process_time() - own) * 1000 / repeat


async def _memory_status(store: GraphStore) -> None:
    """The graph reads of `memory status` (bot/memory/_status.py, and _modes.py's channel listing)."""
    await episodes_by_status(store, [EpisodeStatus.PENDING], guild_id=GUILD)
    await episodes_by_status(store, [EpisodeStatus.FAILED], guild_id=GUILD)
    await recent_activity(store, GUILD, 7, now=NOW)
    await channel_modes(store, GUILD, recent_days=7)


async def _statements(store: GraphStore, text: str, **params: Any) -> None:
    for statement in queries.statements(text):

        async def work(tx: Tx, statement: str = statement) -> list[dict[str, Any]]:
            return await run_text(tx, statement, **params)

        await transactions.read(store, work)


async def _operator(store: GraphStore, name: str, **params: Any) -> None:
    await run_operator_query(store, get_query(name), {"guild_id": GUILD} | params)


def _ops(store: GraphStore) -> dict[str, Op]:
    hour, week = timedelta(hours=1), timedelta(days=7)
    keys = {"from_key": guild_time(GUILD, NOW - week), "to_key": guild_time(GUILD, NOW)}
    return {
        "memory status: last 7 days, backlog, channel listing": lambda: _memory_status(store),
        "memory status' fact counts (created_key / closed_key ranges)": lambda: _statements(
            store, queries.load("store/guild_facts_since"), **keys
        ),
        "memory status' fact counts as before (datetime ranges)": lambda: _statements(
            store, FILES.load("guild_facts_since_datetime"), since=NOW - week, until=NOW, guild_id=GUILD
        ),
        "whole-guild totals (store.guild_counts, status before)": lambda: guild_counts(store, GUILD),
        "operator closed_facts_marked, last 7 days": lambda: _operator(store, "closed_facts_marked", since=NOW - week, until=NOW),
        "operator closed_facts_marked as before (whole guild)": lambda: bench_read(
            store, "closed_facts_marked_whole_guild", guild_id=GUILD, limit=None
        ),
        "operator superseded_recently, last 7 days": lambda: _operator(store, "superseded_recently", since=NOW - week, until=NOW),
        "operator superseded_recently as before (whole guild)": lambda: bench_read(
            store, "superseded_recently_whole_guild", guild_id=GUILD, days=7, now=NOW.isoformat()
        ),
        "upkeep fact cap, a pass (new facts' members only)": lambda: enforce_user_cap(store, 50, now=NOW + hour),
        "upkeep fact cap as before (every member's facts)": lambda: bench_write(
            store, "enforce_user_cap_every_member", cap=50, now=(NOW + hour).isoformat()
        ),
        "extraction's earlier messages (store.messages_before)": lambda: messages_before(store, "800000000000000000", NOW, 10),
    }


async def measure(scale: float, repeat: int) -> tuple[int, dict[str, float]]:
    g = generate(scale)
    with TempArcadeDB() as db:
        store = await db.store("bounded")
        await load(store, g)
        await enforce_user_cap(store, 50, now=NOW)  # the first pass reads every fact once
        figures = {name: await _cpu_ms(db.pid, op, repeat) for name, op in _ops(store).items()}
        await db.close_drivers()
    return len(g.facts), figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bounded_reads", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[1.0, 10.0], help="bench.scale scales (10 = 100,000 facts)")
    parser.add_argument("--repeat", type=int, default=20, help="timed calls per operation, after 3 untimed")
    parser.add_argument("--quick", action="store_true", help="sizes 0.5 and 1, 3 timed calls each")
    parser.add_argument("--smoke", action="store_true", help="sizes 0.1 and 0.2, one timed call each: every row, no figure")
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.repeat = [0.5, 1.0], 3
    if args.smoke:
        args.sizes, args.repeat = [0.1, 0.2], 1
    quiet_logs()
    counters = cpu_counters()
    out = console()
    results = [asyncio.run(measure(scale, args.repeat)) for scale in args.sizes]
    names = list(results[0][1])
    headers = ["operation"] + [f"{facts:,} facts, CPU ms" for facts, _ in results] + ["ratio last/first"]
    rows = [
        [name] + [f"{r[name]:.2f}" for _, r in results] + [f"{results[-1][1][name] / max(results[0][1][name], 1e-9):.1f}x"]
        for name in names
    ]
    out.print(table("CPU per call: engine process + this process (wall-clock time on a loaded machine is noise)", headers, rows))
    out.print(machine_note(counters))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
