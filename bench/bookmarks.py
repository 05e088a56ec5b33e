"""What chaining bookmarks costs: a write then the read after it, through the store's Runner, with the driver's
bookmark manager (what every session uses, so a Neo4j cluster member answers a read only once it holds the
process's writes) against a manager that holds none (sessions not chained). The two alternate round by round
in one run on the embedded engine, so the machine's load falls on both alike; the stolen CPU is printed.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Collection, Sequence

from neo4j.api import AsyncBookmarkManager

from bench.common import TempArcadeDB, console, cpu_counters, machine_note, percentile, quiet_logs, steal_share, table
from graph.session import Runner
from tests.support.busy_server import G1, PEOPLE, populate


class NoBookmarks(AsyncBookmarkManager):
    """Sessions given this manager begin with no bookmark: what every session did before chaining."""

    async def update_bookmarks(self, previous_bookmarks: Collection[str], new_bookmarks: Collection[str]) -> None:
        return None

    async def get_bookmarks(self) -> Collection[str]:
        return ()


async def round_trip(runner: Runner, n: int) -> tuple[float, float]:
    started = time.perf_counter()
    await runner.write_one("store/upsert_guild", id=f"bench-{n % 50}", name=f"round {n}")
    wrote = time.perf_counter()
    await runner.read_plain("store/users_by_id", ids=[PEOPLE["alice"], PEOPLE["bob"]], guild_id=G1)
    return (wrote - started) * 1000, (time.perf_counter() - wrote) * 1000


async def go(rounds: int, warm: int) -> tuple[dict[str, tuple[list[float], list[float]]], float | None]:
    with TempArcadeDB() as db:
        store = await db.store("bookmarks")
        await populate(store)
        runners = {
            "chained (driver's manager)": Runner(store.driver, store.engine.database),
            "not chained (no bookmarks)": Runner(store.driver, store.engine.database, bookmarks=NoBookmarks()),
        }
        times: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in runners}
        for n in range(warm):  # the engine's JIT, not timed
            for runner in runners.values():
                await round_trip(runner, n)
        counters = cpu_counters()
        for n in range(rounds):
            for name, runner in runners.items():
                write_ms, read_ms = await round_trip(runner, n)
                times[name][0].append(write_ms)
                times[name][1].append(read_ms)
        steal = steal_share(counters, cpu_counters())
        await db.close_drivers()
        return times, steal


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bookmarks", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000, help="write-then-read rounds per variant")
    parser.add_argument("--warm", type=int, default=500, help="untimed rounds per variant first")
    parser.add_argument("--quick", action="store_true", help="100 rounds after 50")
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds, args.warm = 100, 50
    quiet_logs()
    counters = cpu_counters()
    times, steal = asyncio.run(go(args.rounds, args.warm))
    rows = [
        [
            name,
            f"{percentile(w, 50):.2f} / {percentile(w, 95):.2f}",
            f"{percentile(r, 50):.2f} / {percentile(r, 95):.2f}",
        ]
        for name, (w, r) in times.items()
    ]
    out = console()
    out.print(
        table(
            f"Bookmarks: {args.rounds:,} rounds of a write then a read, alternating, on the embedded engine",
            ["sessions", "write p50 / p95 ms", "read after it p50 / p95 ms"],
            rows,
        )
    )
    out.print(f"CPU time stolen by the hypervisor while the rounds were timed: {steal:.1%}" if steal is not None else "")
    out.print(machine_note(counters))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
