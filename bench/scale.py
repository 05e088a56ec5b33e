"""Scale: a generated guild of 1,000 users, 10,000 entities and 100,000 facts (at --scale 10).

    python -m bench.scale [--scale 10] [--quick | --smoke] [--authors 200]

The guild is loaded with UNWIND batches through bench-only Cypher files (bench/queries/), then on
each engine (embedded ArcadeDB; Neo4j 5 when a Docker engine answers, else skipped with the reason):
- load time, per kind of record;
- the reply context (all parts: author, related, channel, reply chain) for random authors, p50/p95;
- one episode write (no LLM: 5 facts, 2 entities, a relation, a corroboration, a supersession), p50/p95;
- forget-me for the user with the most facts: the transaction and the audit through the indexes the member
  waits for, then the thorough audit run after their answer (engine and bench CPU of each), with results;
- `memory status` and its parts (the whole-guild totals kept as the writes happen, the last days' activity), and
  the loaded guild's kept totals backfilled (what an older store gets at its first start);
- resident memory of the ArcadeDB child process (/proc RSS).
At scale s: 100*s users, 1,000*s entities, 10,000*s facts, 10 messages per user (100k facts,
10k messages at s=10); the forgotten user has min(1000, 100*s) facts about them.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.common import (
    TempArcadeDB,
    console,
    cpu_counters,
    machine_note,
    percentile,
    quiet_logs,
    reference_ms,
    steal_share,
    table,
)
from bench.scale_growth import Size, compare_aot, cpu_headline, growth_rows, measure_size, status_rows, write_svg
from bench.scale_guild import GUILD, Guild, generate, load
from bench.scale_measure import (
    PURGE_UP_TO,
    RECORDING_MESSAGES,
    STATUS_CALLS,
    STEADY_AFTER,
    WARM_UP,
    Figures,
    measure_context,
    measure_counts_backfill,
    measure_forget,
    measure_read_model,
    measure_reads,
    measure_recording,
    measure_status,
    measure_writes,
)
from bench.scale_report import report, share
from bench.topics import measure_topic_reads
from common.settings import ContextSettings
from graph.schema import setup_schema
from graph.store import GraphStore, writer
from tests.support.ports import docker_missing


async def run_engine(
    figures: Figures,
    store: GraphStore,
    g: Guild,
    authors: int,
    writes: int,
    rss: Any = None,
    steady_after: int = STEADY_AFTER,
    purge: bool = True,
    rehearsal: ContextSettings | None = None,
    recorded: int = RECORDING_MESSAGES,
) -> None:
    rng = random.Random(11)
    figures.load = await load(store, g)
    figures.rss_loaded = rss() if rss else None
    await measure_counts_backfill(store, figures)
    # This process holds the generated guild (about a million Python objects) that a bot never holds;
    # left to the collector, its full passes over them land inside the timed context builds.
    gc.collect()
    gc.freeze()
    await measure_context(store, g, figures, authors, rng, steady_after, rehearsal)
    await measure_read_model(store, figures)
    figures.status_ms, figures.totals_ms = await measure_status(store)
    await measure_reads(store, g, figures, min(authors, 50), rng)
    await measure_topic_reads(store, GUILD, g, figures, min(authors, 50), rng)
    await measure_writes(store, g, figures, writes, rng)
    figures.recording = await measure_recording(store, GUILD, [c["id"] for c in g.channels], g.users[1:], recorded)
    await measure_forget(store, g, figures, purge)
    figures.rss_end = rss() if rss else None


async def run_arcadedb(
    g: Guild,
    authors: int,
    writes: int,
    steady_after: int,
    purge: bool = True,
    rehearsal: ContextSettings | None = None,
    recorded: int = RECORDING_MESSAGES,
) -> Figures:
    figures = Figures("ArcadeDB (embedded, Bolt)")
    with TempArcadeDB() as db:
        store = await db.store("scale")
        figures.aot = db.aot_used
        figures.engine_pid = db.pid
        await run_engine(figures, store, g, authors, writes, db.rss_mb, steady_after, purge, rehearsal, recorded)
        await db.close_drivers()
    return figures


async def run_neo4j(
    g: Guild, authors: int, writes: int, steady_after: int, purge: bool = True, rehearsal: ContextSettings | None = None
) -> Figures:
    figures = Figures("Neo4j 5 (Docker)")
    reason = docker_missing()
    if reason:
        figures.skipped = reason
        return figures
    from testcontainers.neo4j import Neo4jContainer

    from graph.engines.neo4j import Neo4jEngine

    with Neo4jContainer("neo4j:5-community", password="grapevine-bench") as container:
        engine = Neo4jEngine(container.get_connection_url(), "neo4j", "grapevine-bench")
        store = writer(engine)
        await setup_schema(store)
        await run_engine(figures, store, g, authors, writes, steady_after=steady_after, purge=purge, rehearsal=rehearsal)
        await store.close()
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.scale", description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=10.0, help="10 = 1,000 users, 10,000 entities, 100,000 facts")
    parser.add_argument("--authors", type=int, default=200, help="random authors whose context is built")
    parser.add_argument("--writes", type=int, default=100, help="episode writes timed")
    parser.add_argument(
        "--steady", type=int, default=STEADY_AFTER, help="context builds before the steady-state timings (0: none)"
    )
    parser.add_argument("--quick", action="store_true", help="scale 0.5, 50 authors, 30 writes, steady after 500")
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="scale 0.2, 20 authors, 10 writes, steady after 300, 1,000 messages recorded: every row, no figure",
    )
    parser.add_argument(
        "--purge",
        action="store_true",
        help=f"time the purge of the engine's files after forget-me above {PURGE_UP_TO:,} facts too (over a minute at 1M)",
    )
    parser.add_argument("--no-neo4j", action="store_true", help="skip Neo4j even when Docker answers")
    parser.add_argument(
        "--no-rehearsal",
        action="store_true",
        help="time the context builds without the bot's start-up rehearsal of the reply reads (recall/rehearsal.py)",
    )
    parser.add_argument(
        "--sizes",
        type=float,
        nargs="*",
        default=None,
        help="smaller scales whose context builds are timed too, each on a fresh engine (default: scale/10 and "
        "scale/100, down to 0.5)",
    )
    parser.add_argument("--svg", type=Path, default=None, help="write the curve of context p95 against facts here")
    parser.add_argument(
        "--aot-pairs",
        type=int,
        default=0,
        help="only compare fresh engines without and with the JDK's AOT cache, this many pairs, at --scale",
    )
    args = parser.parse_args(argv)
    rehearsal: ContextSettings | None = ContextSettings()  # the bot's start-up rehearsal, for its default time
    recorded = RECORDING_MESSAGES
    if args.quick:
        args.scale, args.authors, args.writes, args.steady = 0.5, 50, 30, 500
        rehearsal = ContextSettings(rehearsal_seconds=5.0)
    if args.smoke:
        args.scale, args.authors, args.writes, args.steady, recorded = 0.2, 20, 10, 300, 1000
        rehearsal = ContextSettings(rehearsal_seconds=1.0)
    if args.no_rehearsal:
        rehearsal = None
    if args.sizes is None:
        args.sizes = [s for s in (args.scale / 100, args.scale / 10) if s >= 0.5]
    quiet_logs()
    counters = cpu_counters()
    out = console()
    if args.aot_pairs:
        runs = asyncio.run(compare_aot(args.scale, args.authors, args.aot_pairs, rehearsal))
        rows = [[f"{n // 2 + 1}", "with" if s.aot else "without", f"{percentile(s.early_ms, 50):.1f}", f"{s.p95():.1f}",
                 share(s.early_steal)] for n, s in enumerate(runs)]  # fmt: skip
        out.print(table(f"Fresh engines at {runs[0].facts:,} facts: context builds {args.authors} after {WARM_UP}",
                        ["pair", "AOT cache", "p50 ms", "p95 ms", "stolen"], rows))  # fmt: skip
        out.print(machine_note(counters))
        return 0
    out.print(f"reference work before the run: {reference_ms():.0f} ms (the same work is timed after it)")
    started = time.perf_counter()
    g = generate(args.scale)
    out.print(f"generated in {time.perf_counter() - started:.1f} s")

    sizes: list[Size] = []

    async def go() -> list[Figures]:
        for scale in sorted(args.sizes):
            sizes.append(await measure_size(scale, args.authors, args.steady, rehearsal))
            out.print(f"size {sizes[-1].facts:,} facts measured (its load {sizes[-1].load_s:.0f} s)")
        purge = args.purge or len(g.facts) <= PURGE_UP_TO
        figures = [await run_arcadedb(g, args.authors, args.writes, args.steady, purge, rehearsal, recorded)]
        if args.no_neo4j:
            skipped = Figures("Neo4j 5 (Docker)")
            skipped.skipped = "switched off with --no-neo4j"
            figures.append(skipped)
        else:
            figures.append(await run_neo4j(g, args.authors, args.writes, args.steady, purge, rehearsal))
        return figures

    all_figures = asyncio.run(go())
    report(g, all_figures, args.authors, counters)
    full = all_figures[0]
    if not full.skipped:
        sizes.append(Size(args.scale, len(g.facts), len(g.messages), sum(s for _, _, s in full.load), full.context_ms,
                          full.steady_ms, full.context_steal, full.steady_steal, full.aot, full.context_cpu,
                          full.steady_cpu, full.status_ms, full.totals_ms, full.counts_backfill_s))  # fmt: skip
        out.print(
            table(
                f"{full.engine}: the reply context as the guild grows ({args.authors} random authors per size, each size "
                "on a fresh engine; growth: p95 against the size ten times smaller)",
                [
                    "facts",
                    "messages",
                    "load s",
                    "AOT cache",
                    f"p50 / p95 ms after {WARM_UP}",
                    "stolen",
                    "growth",
                    f"p50 / p95 ms after {full.steady_after:,}",
                    "stolen",
                    "growth",
                    f"CPU ms per build after {WARM_UP} (engine + client)",
                    f"after {full.steady_after:,}",
                    "CPU growth",
                ],  # fmt: skip
                growth_rows(sizes),
            )
        )
        one, five, _ = os.getloadavg()
        out.print(
            table(
                f"memory status as the guild grows (wall ms, {STATUS_CALLS} reads after 3; load average {one:.1f} / "
                f"{five:.1f} on {os.cpu_count()} CPUs)",
                ["facts", "memory status p50 / p95 ms", "its kept totals p50 / p95 ms", "totals backfilled in s"],
                status_rows(sizes),
            )
        )
        one, five, _ = os.getloadavg()
        out.print(f"CPU per reply build, the headline (load average {one:.1f} / {five:.1f} on {os.cpu_count()} CPUs, "
                  f"CPU stolen {share(steal_share(counters, cpu_counters()))}):")  # fmt: skip
        for line in cpu_headline(sizes, WARM_UP):
            out.print(line)
        if args.svg is not None and len(sizes) > 1:
            one, five, _ = os.getloadavg()
            note = (
                f"bench.scale --scale {args.scale:g}, {os.cpu_count()} CPUs, load average {one:.1f} / {five:.1f}, "
                f"CPU stolen {share(steal_share(counters, cpu_counters()))}"
            )
            write_svg(args.svg, sizes, WARM_UP, full.steady_after, note)
            out.print(f"curve written to {args.svg}")
    out.print(f"whole run: {(time.perf_counter() - started) / 60:.1f} min")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
