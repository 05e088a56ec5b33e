"""How bench.scale's figures grow with the guild: the reply context at smaller sizes (each on a fresh engine, as
the full size is), the growth ratio, message recording into the full-size graph, and the curve as an SVG.

The SVG is written here, a few lines of markup (no plotting library is a dependency): context build p95
against facts, on a log scale, after the warm-up builds and after the steady-state builds.
"""

from __future__ import annotations

import asyncio
import gc
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape

from bench.common import TempArcadeDB, percentile
from bench.cpu import CpuPerOp
from bench.scale_guild import generate, load
from bench.scale_measure import Figures, measure_context, measure_counts_backfill, measure_status
from bench.scale_report import share
from common.settings import ContextSettings


@dataclass
class Size:
    """The reply context at one size of the generated guild."""

    scale: float
    facts: int
    messages: int
    load_s: float
    early_ms: list[float] = field(default_factory=list)  # after the warm-up builds (a bot that has just started)
    steady_ms: list[float] = field(default_factory=list)  # after the steady-state builds
    early_steal: float | None = None
    steady_steal: float | None = None
    aot: bool = False  # whether its engine started with the JDK's AOT cache of an earlier run
    early_cpu: CpuPerOp | None = None  # CPU per build (engine's process and the bench's) after the warm-up builds
    steady_cpu: CpuPerOp | None = None
    status_ms: list[float] = field(default_factory=list)  # memory status's graph reads (bench/scale_measure.py)
    totals_ms: list[float] = field(default_factory=list)  # of them, the whole-guild totals kept as the writes happen
    backfill_s: float = 0.0  # the loaded guild's kept totals backfilled

    def p95(self, steady: bool = False) -> float:
        return percentile(self.steady_ms if steady else self.early_ms, 95)


async def measure_size(
    scale: float, authors: int, steady_after: int, rehearsal: ContextSettings | None, aot: bool = True
) -> Size:
    """Generate and load the guild at `scale` on a fresh engine, then time its context builds (after the bot's
    start-up rehearsal, with `rehearsal`)."""
    g = generate(scale)
    figures = Figures("ArcadeDB (embedded, Bolt)")
    with TempArcadeDB(aot=aot) as db:
        store = await db.store("size")
        figures.engine_pid = db.pid
        steps = await load(store, g)
        await measure_counts_backfill(store, figures)
        gc.collect()
        await measure_context(store, g, figures, authors, random.Random(11), steady_after, rehearsal)
        status, totals = await measure_status(store)
        await db.close_drivers()
    return Size(
        scale,
        len(g.facts),
        len(g.messages),
        sum(s for _, _, s in steps),
        figures.context_ms,
        figures.steady_ms,
        figures.context_steal,
        figures.steady_steal,
        db.aot_used,
        figures.context_cpu,
        figures.steady_cpu,
        status,
        totals,
        figures.counts_backfill_s,
    )


def status_rows(sizes: Sequence[Size]) -> list[list[str]]:
    """One row per size: memory status's graph reads p50 / p95, its kept totals alone, and their backfill."""
    return [
        [f"{s.facts:,}", f"{percentile(s.status_ms, 50):.1f} / {percentile(s.status_ms, 95):.1f}",
         f"{percentile(s.totals_ms, 50):.2f} / {percentile(s.totals_ms, 95):.2f}", f"{s.backfill_s:.2f}"]
        for s in sizes
        if s.status_ms
    ]  # fmt: skip


def growth_rows(sizes: Sequence[Size]) -> list[list[str]]:
    """One row per size: facts, p50/p95 after the warm-up and after the steady builds, p95 against the size ten
    times smaller; CPU per build after each, and its growth against the size ten times smaller."""
    rows = []
    by_facts = {s.facts: s for s in sizes}
    for s in sizes:
        smaller = by_facts.get(s.facts // 10)
        ratio = f"{s.p95() / smaller.p95():.1f}x" if smaller and smaller.p95() else "-"
        steady_ratio = f"{s.p95(True) / smaller.p95(True):.1f}x" if smaller and smaller.steady_ms and s.steady_ms else "-"
        rows.append([
            f"{s.facts:,}", f"{s.messages:,}", f"{s.load_s:.0f}", "yes" if s.aot else "no (records it)",
            f"{percentile(s.early_ms, 50):.1f} / {s.p95():.1f}", share(s.early_steal), ratio,
            f"{percentile(s.steady_ms, 50):.1f} / {s.p95(True):.1f}" if s.steady_ms else "not run",
            share(s.steady_steal), steady_ratio, _cpu(s.early_cpu), _cpu(s.steady_cpu),
            _cpu_growth(s, smaller),
        ])  # fmt: skip
    return rows


def _cpu_total(size: Size) -> float | None:
    """CPU ms per build, engine + client: after the steady builds when they ran (a bot that has been running)."""
    value = size.steady_cpu or size.early_cpu
    return value.total_ms if value else None


def _cpu_growth(size: Size, smaller: Size | None) -> str:
    now, before = _cpu_total(size), _cpu_total(smaller) if smaller else None
    return f"{now / before:.2f}x" if now is not None and before else "-"


def cpu_headline(sizes: Sequence[Size], warm_up: int) -> list[str]:
    """The figure each reply costs the operator's machine, whatever its load: CPU per build (the engine's process
    and the client's) at each size, after the steady builds when they ran, its growth from the smallest size to
    each larger one, and the wall-clock p95 beside it."""
    lines = []
    ordered = sorted(sizes, key=lambda s: s.facts)
    first = _cpu_total(ordered[0]) if ordered else None
    for s in ordered:
        cpu = s.steady_cpu or s.early_cpu
        after = "the steady builds" if s.steady_cpu else f"{warm_up} builds"
        total = _cpu_total(s)
        growth = f", {total / first:.2f}x the {ordered[0].facts:,} facts' CPU" if total and first and s is not ordered[0] else ""
        lines.append(
            f"  {s.facts:,} facts: CPU per reply build {cpu.text() if cpu else 'n/a'} after {after}{growth}; "
            f"wall-clock p95 {s.p95(bool(s.steady_cpu and s.steady_ms)):.1f} ms"
        )
    return lines


def _cpu(value: CpuPerOp | None) -> str:
    total = value.total_ms if value else None
    return "n/a" if value is None or total is None else f"{total:.1f} ({value.engine_ms:.1f} + {value.client_ms:.1f})"


def write_svg(path: Path, sizes: Sequence[Size], warm_up: int, steady_after: int, note: str) -> None:
    """Context build p95 against facts (log scale), after `warm_up` builds and after `steady_after`."""
    width, height, left, right, top, bottom = 680, 380, 70, 70, 40, 70
    pts = sorted(sizes, key=lambda s: s.facts)
    top_ms = max([s.p95() for s in pts] + [s.p95(True) for s in pts if s.steady_ms] + [1.0]) * 1.15
    import math

    lo, hi = math.log10(pts[0].facts), math.log10(pts[-1].facts)
    span = (hi - lo) or 1.0

    def x(facts: int) -> float:
        return left + (math.log10(facts) - lo) / span * (width - left - right)

    def y(ms: float) -> float:
        return top + (1 - ms / top_ms) * (height - top - bottom)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="14">Reply context build p95 (ms) against facts</text>',
        f'<line x1="{left}" y1="{height - bottom}" x2="{width - right}" y2="{height - bottom}" stroke="black"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{height - bottom}" stroke="black"/>',
    ]
    for k in range(6):
        ms = top_ms * k / 5
        out.append(f'<text x="{left - 6}" y="{y(ms) + 4:.1f}" text-anchor="end">{ms:.0f}</text>')
        out.append(f'<line x1="{left}" y1="{y(ms):.1f}" x2="{width - right}" y2="{y(ms):.1f}" stroke="#ddd"/>')
    for s in pts:
        out.append(f'<text x="{x(s.facts):.1f}" y="{height - bottom + 16}" text-anchor="middle">{s.facts:,}</text>')
    series = [("#c0392b", f"after {warm_up} builds (engine just started)", False)]
    if all(s.steady_ms for s in pts):
        series.append(("#2471a3", f"after {steady_after:,} builds", True))
    for n, (colour, label, steady) in enumerate(series):
        line = " ".join(f"{x(s.facts):.1f},{y(s.p95(steady)):.1f}" for s in pts)
        out.append(f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for s in pts:
            out.append(f'<circle cx="{x(s.facts):.1f}" cy="{y(s.p95(steady)):.1f}" r="3.5" fill="{colour}"/>')
            out.append(
                f'<text x="{x(s.facts) + 6:.1f}" y="{y(s.p95(steady)) - 6:.1f}" fill="{colour}">{s.p95(steady):.1f}</text>'
            )
        out.append(f'<text x="{left + 10}" y="{top + 14 + 16 * n}" fill="{colour}">{escape(label)}</text>')
    out.append(f'<text x="{width / 2}" y="{height - 30}" text-anchor="middle">facts (log scale)</text>')
    out.append(f'<text x="{width / 2}" y="{height - 12}" text-anchor="middle" font-size="10">{escape(note)}</text>')
    out.append("</svg>")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


async def compare_aot(scale: float, authors: int, pairs: int, rehearsal: ContextSettings | None) -> list[Size]:
    """Fresh engines at `scale`, alternately without and with the AOT cache (one recorded first if none is
    there): the context builds after the warm-up, side by side."""
    from bench.common import AOT_DIR

    if not any(AOT_DIR.glob("engine-*.aot")):
        await measure_size(scale, authors, 0, rehearsal)  # records it; the cache is made after that engine stops
        for _ in range(300):
            if any(AOT_DIR.glob("engine-*.aot")):
                break
            await asyncio.sleep(1)
    runs = []
    for _ in range(pairs):
        for aot in (False, True):
            runs.append(await measure_size(scale, authors, 0, rehearsal, aot))
    return runs
