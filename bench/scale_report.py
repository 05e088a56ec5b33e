"""bench.scale's report: the engines' table, then per engine its load steps, message recording, the per-read
breakdown, the warm-up curve, the parts filled, the CPU figures and forget-me."""

from __future__ import annotations

import os

from bench.common import console, machine_note, percentile, table
from bench.scale_guild import BATCH, Guild
from bench.scale_measure import (
    FACTS_HELD,
    FACTS_STATEMENT,
    LIVE,
    PURGE_UP_TO,
    ROUND_HELD,
    ROUND_STATEMENT,
    TALK_HELD,
    TALK_STATEMENT,
    WARM_UP,
    Figures,
)
from recall.rehearsal import Rehearsal


def _forget_lines(f: Figures) -> list[str]:
    def cpu(step: str) -> str:
        engine, own = f.forget_cpu.get(step, (None, 0.0))
        return f"CPU: engine {'n/a' if engine is None else f'{engine:.2f} s'}, bench {own:.2f} s"

    deleted = ", ".join(f"{k} {v}" for k, v in f.forget_deleted.items())
    indexed = "clean" if not f.forget_indexed_residue else f"NOT clean: {f.forget_indexed_residue[:5]}"
    return [
        f"{f.engine}: forget-me of a user with {f.forget_facts_before} facts about them: deleted {deleted}",
        f"  the member waits for: one write transaction of {f.forget_statements} statements, {f.forget_s:.2f} s "
        f"({cpu('transaction')}), the audit through the indexes inside it {f.forget_indexed_audit_s:.2f} s: {indexed}",
        f"  after their answer, the thorough audit (every property of every node and relationship): {f.forget_audit_s:.2f} s "
        f"({cpu('thorough audit')}): {'clean, nothing left' if not f.residue else f'NOT clean: {f.residue[:5]}'}",
        f"  the purge of the engine's files (the next upkeep pass, out of the request): {f.forget_files_s:.2f} s ({cpu('files purge')})"
        if f.forget_files_s is not None
        else f"  the purge of the engine's files (the next upkeep pass, out of the request): not run above {PURGE_UP_TO:,} facts "
        "(not a target; --purge runs it)",
    ]


def rehearsal_text(done: Rehearsal | None) -> str:
    if done is None:
        return "no start-up rehearsal (--no-rehearsal): the builds were timed on an engine as it starts"
    return (
        f"the bot's start-up rehearsal ran first: {done.builds:,} builds of {done.requests} requests made of the "
        f"channels' latest messages in {done.seconds:.0f} s (half of the time at most), then {WARM_UP} builds, then the timed ones"
    )


def share(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def _held_against_statements(f: Figures, reads: list[tuple[str, str, str, str]]) -> list[str]:
    """A line per (read, its row from the read model, what it is asked as, that row) timed both ways in the run."""
    lines = []
    for label, held_name, asked, statement_name in reads:
        held, statement = f.reads_cpu.get(held_name), f.reads_cpu.get(statement_name)
        if held and statement and held.total_ms is not None and statement.total_ms:
            lines.append(
                f"{f.engine}: a reply's {label}, CPU from the read model {held.text()} against {asked} "
                f"{statement.text()}: {held.total_ms / statement.total_ms:.2f}x (new/base, same run)"
            )
    return lines


def _model_lines(f: Figures) -> list[str]:
    """The read model's lines: each read from memory against its statements, and the model's memory."""
    lines = _held_against_statements(f, [("fact read", FACTS_HELD, "one statement", FACTS_STATEMENT)])
    if f.model_facts:
        per = f.model_bytes / f.model_facts * 100_000 / 2**20
        lines.append(
            f"{f.engine}: the reply's read model of the guild: {f.model_facts:,} facts in {f.model_bytes / 2**20:,.1f} MB "
            f"({per:,.0f} MB per 100,000 facts, no embeddings held), read from the graph in {f.model_load_s:.1f} s"
        )
    if f.counts_backfill_s:
        lines.append(f"{f.engine}: the loaded guild's kept totals backfilled (one recount) in {f.counts_backfill_s:.2f} s")
    lines += _held_against_statements(f, [(f"conversation ({LIVE})", TALK_HELD, "the statements", TALK_STATEMENT),
                                          (f"second round ({LIVE})", ROUND_HELD, "the statements", ROUND_STATEMENT)])  # fmt: skip
    if f.talk_channels:
        lines.append(
            f"{f.engine}: the read model's talk: {f.talk_channels:,} channels, {f.talk_messages:,} messages in "
            f"{f.talk_bytes / 2**20:,.1f} MB (read after the facts' figure above: besides it)"
        )
    return lines


def report(g: Guild, all_figures: list[Figures], authors: int, since: list[int] | None = None) -> None:
    out = console()
    out.print(machine_note(since))
    title = (
        f"Scale: {len(g.users):,} users, {len(g.entities):,} entities, {len(g.facts):,} facts, "
        f"{len(g.messages):,} messages, {len(g.episodes):,} episodes, about {g.edges:,} edges"
    )
    rows = []
    for f in all_figures:
        if f.skipped:
            rows.append([f.engine, "skipped", "", "", "", "", "", "", "", ""])
            continue
        load_s = sum(s for _, _, s in f.load)
        residue = "clean" if not f.residue else f"{len(f.residue)} left"
        steady = f"{percentile(f.steady_ms, 50):.1f} / {percentile(f.steady_ms, 95):.1f}" if f.steady_ms else "not run"
        rows.append([
            f.engine, f"{load_s:.1f}", f"{percentile(f.context_ms, 50):.1f}", f"{percentile(f.context_ms, 95):.1f}", steady,
            f"{percentile(f.write_ms, 50):.1f}", f"{percentile(f.write_ms, 95):.1f}",
            f"{f.forget_s:.2f} ({f.forget_deleted.get('Fact', 0)} facts)", residue,
            f"{f.rss_loaded:.0f} / {f.rss_end:.0f}" if f.rss_loaded and f.rss_end else "n/a",
        ])  # fmt: skip
    steady_after = max((f.steady_after for f in all_figures), default=0)
    headers = [
        "engine",
        "load s",
        f"context p50 ms ({authors}, after {WARM_UP} builds)",
        "context p95 ms",
        f"context p50 / p95 ms after {steady_after:,} builds",
        "episode write p50 ms",
        "episode write p95 ms",
        "forget-me s",
        "residue audit",
        "RSS MB loaded / end",
    ]
    out.print(table(title, headers, rows))
    for f in all_figures:
        if f.skipped:
            out.print(f"{f.engine}: SKIPPED: {f.skipped}")
            continue
        out.print(
            table(
                f"{f.engine}: load steps (UNWIND batches of {BATCH:,})",
                ["step", "rows", "seconds", "rows/s"],
                [[w, f"{n:,}", f"{s:.1f}", f"{n / s:,.0f}" if s else "-"] for w, n, s in f.load],
            )
        )
        if f.recording is not None:
            r = f.recording
            out.print(
                f"{f.engine}: message recording into this graph, {r.sent:,} messages flat out from {len(g.channels)} channels "
                f"(live windows, recorder tick 50 ms): {r.per_second:,.0f} messages/s written, "
                f"{'none lost' if r.stored == r.sent else f'{r.sent - r.stored:,} LOST'}, event loop late at most "
                f"{r.lag_max_ms:.0f} ms, CPU stolen {share(r.steal)}"
            )
        for line in _model_lines(f):
            out.print(line)
        if f.reads:
            out.print(
                table(
                    f"{f.engine}: each read of a context build alone, one at a time (build_context runs them concurrently), "
                    "then the extraction prompt's earlier messages and memory status",
                    ["read", "p50 ms", "p95 ms", "CPU ms per read (engine + client)"],
                    [
                        [
                            n,
                            f"{percentile(v, 50):.1f}",
                            f"{percentile(v, 95):.1f}",
                            f.reads_cpu[n].text() if n in f.reads_cpu else "n/a",
                        ]
                        for n, v in f.reads.items()
                    ],
                )
            )
        if f.curve:
            out.print(
                table(
                    f"{f.engine}: context build while the engine warms up (blocks of random authors)",
                    ["builds before", "builds", "p50 ms", "p95 ms", "CPU stolen"],
                    [
                        [f"{start:,}", f"{len(ms)}", f"{percentile(ms, 50):.1f}", f"{percentile(ms, 95):.1f}", share(steal)]
                        for start, ms, steal in f.curve
                    ],
                )
            )
        filled = ", ".join(f"{name} {count}/{len(f.context_ms)}" for name, count in f.parts_filled.items())
        out.print(
            f"{f.engine}: context parts filled: {filled}; mean context {sum(f.context_tokens) / max(1, len(f.context_tokens)):.0f} tokens; "
            f"timed after {WARM_UP} warm-up builds"
        )
        out.print(f"{f.engine}: {rehearsal_text(f.rehearsal)}")
        out.print(
            f"{f.engine}: CPU time stolen by the hypervisor while the context builds were timed: "
            f"{share(f.context_steal)} after {WARM_UP} builds, {share(f.steady_steal)} after {f.steady_after:,}"
            f"; the engine started {'with' if f.aot else 'without'} the JDK's AOT cache of an earlier run"
        )
        if f.context_cpu is not None:
            steady_cpu = f", after {f.steady_after:,}: {f.steady_cpu.text()}" if f.steady_cpu else ""
            out.print(
                f"{f.engine}: CPU per context build (the engine's process from /proc and this process; the machine's "
                f"load does not inflate it as it does the wall-clock ms): after {WARM_UP} builds {f.context_cpu.text()}"
                f"{steady_cpu}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
            )
        for line in _forget_lines(f):
            out.print(line)
