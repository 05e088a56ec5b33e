"""`memory status` at the sizes of bench.scale's generated guild, alone (bench.scale prints the same rows inside its
whole run): per size, on a fresh embedded engine, the load, the kept totals' backfill, and the status reads.

    python -m bench.scale_status [--sizes 1 10 100]   # 10,000 / 100,000 / 1,000,000 facts

Wall ms of `memory status`'s graph reads (the whole-guild totals kept on the Guild node, the last 7 days' activity,
the waiting and failed windows, the channel listing), of the kept totals alone, of the last 7 days' activity alone,
and of the recount they replace."""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import time
from collections.abc import Sequence

from bench.common import TempArcadeDB, console, percentile, quiet_logs, table
from bench.scale_guild import GUILD, NOW, generate, load
from bench.scale_measure import STATUS_CALLS, Figures, measure_counts_backfill, measure_status
from graph.reads.activity import recent_activity
from graph.reads.stats import guild_counts


async def measure(scale: float) -> list[str]:
    started = time.perf_counter()
    g = generate(scale)
    generated = time.perf_counter() - started
    figures = Figures("ArcadeDB (embedded, Bolt)")
    with TempArcadeDB() as db:
        store = await db.store("status")
        started = time.perf_counter()
        await load(store, g)
        loaded = time.perf_counter() - started
        await measure_counts_backfill(store, figures)
        gc.collect()
        status, totals = await measure_status(store)
        activity = []
        for _ in range(STATUS_CALLS):
            started = time.perf_counter()
            await recent_activity(store, GUILD, 7, now=NOW)
            activity.append((time.perf_counter() - started) * 1000)
        recounts = []
        for _ in range(5):
            started = time.perf_counter()
            await guild_counts(store, GUILD)
            recounts.append((time.perf_counter() - started) * 1000)
        await db.close_drivers()
    one, five, _ = os.getloadavg()
    return [
        f"{len(g.facts):,}", f"{generated:.0f} + {loaded:.0f}", f"{figures.counts_backfill_s:.2f}",
        f"{percentile(status, 50):.1f} / {percentile(status, 95):.1f}",
        f"{percentile(totals, 50):.2f} / {percentile(totals, 95):.2f}",
        f"{percentile(activity, 50):.1f} / {percentile(activity, 95):.1f}",
        f"{percentile(recounts, 50):.0f}", f"{one:.1f} / {five:.1f}",
    ]  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.scale_status", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[1.0, 10.0], help="bench.scale scales (100 = 1M facts)")
    args = parser.parse_args(argv)
    quiet_logs()
    out = console()
    rows = []
    for scale in args.sizes:
        rows.append(asyncio.run(measure(scale)))
        out.print(" | ".join(rows[-1]), highlight=False)
    headers = ["facts", "generated + loaded s", "totals backfilled s", f"memory status p50 / p95 ms ({STATUS_CALLS})",
               "kept totals p50 / p95 ms", "last 7 days p50 / p95 ms", "recount ms (p50 of 5)", "load average 1 / 5 min"]  # fmt: skip
    out.print(table(f"memory status on {os.cpu_count()} CPUs (wall ms; a loaded machine inflates them)", headers, rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
