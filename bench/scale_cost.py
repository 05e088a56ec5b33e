"""What one reply build costs, counted rather than timed: the statements it sends the engine (by name), the
client's profile (cProfile), and a digest of every context built, so that two trees can be compared for the same
answers on the same generated guild (bench.scale_guild).

    python -m bench.scale_cost [--scale 1] [--builds 300] [--profile 20] [--dump contexts.json]

The builds are `bench.scale`'s random requests after its warm-up, the read model warm; CPU times printed are of
this process and the engine's on a shared machine: a count is the figure to compare, a time only within one run.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import cProfile
import gc
import hashlib
import io
import json
import pstats
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.common import TempArcadeDB, quiet_logs
from bench.cpu import CpuClock
from bench.scale_guild import Guild, generate, load
from bench.scale_measure import WARM_UP, reply_request
from common.settings import ContextSettings
from graph import session, transactions
from graph.store import GraphStore
from recall.assemble import ReplyContext
from recall.gather import build_context

Counter = collections.Counter[str]


Sent = dict[str, list[dict[str, Any]]]


def count_statements(sent: Sent | None = None) -> Counter:
    """Every statement sent from here on, by its file's name (auto-commit reads and those inside transactions);
    the auto-commit ones' parameters kept in `sent`, by name."""
    counted: Counter = collections.Counter()
    plain, text_run = session.run_plain, session.run_text
    names = {id(text): name for name, text in _all_texts()}

    async def run_plain(tx: Any, name: str, /, **params: Any) -> list[dict[str, Any]]:
        counted[name] += 1
        if sent is not None:
            sent.setdefault(name, []).append(params)
        return await plain(tx, name, **params)

    async def run_text(tx: Any, text: str, /, **params: Any) -> list[dict[str, Any]]:
        counted[names.get(id(text), "(other)")] += 1
        return await text_run(tx, text, **params)

    session.run_plain, session.run_text = run_plain, run_text
    return counted


def _all_texts() -> list[tuple[str, str]]:
    import queries

    out = []
    for path in queries.FILES.all_files():
        name = path.relative_to(queries.FILES.root).with_suffix("").as_posix()
        out.append((name, queries.load(name)))
    return out


def digest(ctx: ReplyContext) -> str:
    """A context as the reply sees it: its parts' text and the citable sources."""
    shown = json.dumps([[p.name, p.lines, p.ids, p.trimmed] for p in ctx.parts], default=str)
    return hashlib.sha256((shown + repr(ctx.citable) + repr(sorted(ctx.fact_uuids))).encode()).hexdigest()[:16]


async def measure(store: GraphStore, g: Guild, builds: int, profiled: int, pid: int | None) -> dict[str, Any]:
    settings = ContextSettings()
    rng = random.Random(11)
    for _ in range(WARM_UP):
        await build_context(store, reply_request(g, rng), settings)
    requests = [reply_request(g, rng) for _ in range(builds)]
    sent: Sent = {}
    counted = count_statements(sent)
    clock = CpuClock(pid)
    digests = [digest(await build_context(store, req, settings)) for req in requests]
    cpu = clock.per_op(builds)
    statements = dict(counted)
    alone = {name: await _replayed(store, name, calls, pid) for name, calls in sent.items()}
    baseline = [{"guild_id": requests[0].guild_id}] * 200  # a statement of next to no work: the fixed cost
    alone["context/guild_count (baseline)"] = await _replayed(store, "context/guild_count", baseline, pid)
    profiler = cProfile.Profile()
    profiler.enable()
    for req in requests[:profiled]:
        await build_context(store, req, settings)
    profiler.disable()
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(30)
    cumulative = io.StringIO()
    pstats.Stats(profiler, stream=cumulative).sort_stats("cumulative").print_stats(45)
    return {"cpu": cpu.text(), "statements": statements, "alone": alone, "per_build": sum(statements.values()) / builds,
            "digests": digests, "profile": text.getvalue(), "cumulative": cumulative.getvalue()}  # fmt: skip


async def _replayed(store: GraphStore, name: str, calls: list[dict[str, Any]], pid: int | None) -> str:
    """Each auto-commit statement a build sent, sent again alone: its CPU per call (engine and this process), in a
    read transaction of its own (its BEGIN and COMMIT included: a little above what the build's auto-commit costs)."""
    calls = calls[:200]
    clock = CpuClock(pid)
    for params in calls:
        await transactions.read(store, lambda tx: session.run_plain(tx, name, **params))
    return clock.per_op(len(calls)).text()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.scale_cost", description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--builds", type=int, default=300)
    parser.add_argument("--profile", type=int, default=50, help="builds profiled after the counted ones")
    parser.add_argument("--dump", type=Path, default=None, help="write the digests and counts here (JSON)")
    parser.add_argument("--held-windows", type=int, default=0, help="the windows a channel's talk holds (0: as set)")
    args = parser.parse_args(argv)
    if args.held_windows:
        from graph.reads import talk_model

        talk_model.HELD_EPISODES = args.held_windows
    quiet_logs()
    g = generate(args.scale)

    async def go() -> dict[str, Any]:
        with TempArcadeDB() as db:
            store = await db.store("cost")
            await load(store, g)
            gc.collect()
            gc.freeze()
            found = await measure(store, g, args.builds, args.profile, db.pid)
            await db.close_drivers()
            return found

    found = asyncio.run(go())
    print(f"{len(g.facts):,} facts; {args.builds} builds; CPU per build {found['cpu']} (a shared machine: not a figure)")
    print(f"statements per build: {found['per_build']:.2f}")
    for name, n in sorted(found["statements"].items(), key=lambda kv: -kv[1]):
        print(f"  {n / args.builds:6.2f}  {name}   alone: {found['alone'].get(name, '-')}")
    print(f"  baseline {found['alone']['context/guild_count (baseline)']}")
    print(found["profile"])
    print(found["cumulative"])
    if args.dump is not None:
        args.dump.write_text(json.dumps({k: found[k] for k in ("statements", "digests")}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
