"""How well conversation windows keep replies together, on the annotated IRC samples.

    python -m bench.windows [--data DIR] [--quick] [--pace N]

A reply link (parent, reply), self-links excluded, is *seen* when one extraction call sees both
messages: both in one window, or the parent in the carried-over context of the reply's window.
Compares grapevine's policy (defaults, other quiet times, other context sizes) with one window
per message and with fixed windows of 30 messages (neither carries context). `--pace N` stretches
every timestamp N times first (a quieter community saying the same things).

Then the pace table (`bench.pace`): at paces 1, 2, 4, 8 and 16, the extraction calls and estimated
prompt tokens per 100 messages, the reply links seen by one call, and the delay from a message to
the call that extracts it (p50/p95), for grapevine batched (the defaults) and unbatched (one call per
closed window) and per-message extraction. graphiti-core's calls need its own run: `bench.economy`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

from bench.pace import PACES, Schedule, percentile, prompt_tokens, schedule, stretch
from common.settings import ExtractionSettings, WindowSettings
from ingest.replay import replay
from ingest.windows import ClosedWindow, WindowMessage
from tests.support.datasets import DATA_DIR, IrcSample, dev_samples, load_irc

Policy = Callable[[list[WindowMessage]], list[ClosedWindow]]


@dataclass(frozen=True)
class Score:
    policy: str
    messages: int
    windows: int
    links: int
    in_window: int  # both messages inside one window
    seen: int  # in one window, or the parent in that window's context
    largest: int
    mean_context: float
    worst_sample: float  # lowest share of links seen in any one sample

    @property
    def seen_share(self) -> float:
        return self.seen / self.links if self.links else 0.0

    @property
    def window_share(self) -> float:
        return self.in_window / self.links if self.links else 0.0

    @property
    def calls_per_100(self) -> float:
        return 100 * self.windows / self.messages if self.messages else 0.0

    @property
    def mean_size(self) -> float:
        return self.messages / self.windows if self.windows else 0.0


def grapevine_policy(settings: WindowSettings) -> Policy:
    return lambda messages: list(replay(messages, settings))


def fixed_policy(size: int) -> Policy:
    """Cut every `size` messages, no context: size 1 is one call per message."""

    def cut(messages: list[WindowMessage]) -> list[ClosedWindow]:
        chunks = [tuple(messages[i : i + size]) for i in range(0, len(messages), size)]
        return [ClosedWindow(c[0].message.channel_id, c[0].message.guild_id, c, (), "fixed") for c in chunks]

    return cut


def score(name: str, samples: Sequence[IrcSample], policy: Policy) -> Score:
    messages = windows = links = in_window = seen = largest = context = 0
    worst = 1.0
    for sample in samples:
        links_before, seen_before = links, seen
        closed = policy(sample.messages)
        window_of = {wm.message.id: i for i, w in enumerate(closed) for wm in w.messages}
        contexts = [{wm.message.id for wm in w.context} for w in closed]
        for parent, reply in sample.reply_links:
            if parent == reply or parent not in window_of or reply not in window_of:
                continue  # conversation starts, and links to system lines
            links += 1
            same = window_of[parent] == window_of[reply]
            in_window += same
            seen += same or parent in contexts[window_of[reply]]
        messages += len(sample.messages)
        windows += len(closed)
        largest = max([largest, *(len(w.messages) for w in closed)])
        context += sum(len(w.context) for w in closed)
        if links > links_before:
            worst = min(worst, (seen - seen_before) / (links - links_before))
    mean_context = context / windows if windows else 0.0
    return Score(name, messages, windows, links, in_window, seen, largest, mean_context, worst)


def policies() -> list[tuple[str, Policy]]:
    defaults = WindowSettings()
    n = defaults.context_messages
    rows: list[tuple[str, Policy]] = [(f"grapevine defaults: quiet 180 s, context {n}", grapevine_policy(defaults))]
    for quiet in (60, 120, 300, 600):
        rows.append((f"grapevine          quiet {quiet} s, context {n}", grapevine_policy(WindowSettings(quiet_seconds=quiet))))
    for size in sorted({0, 5, 10, 15, 20, 30} - {n}):
        rows.append((f"grapevine          quiet 180 s, context {size}", grapevine_policy(WindowSettings(context_messages=size))))
    rows.append(("one window per message", fixed_policy(1)))
    rows.append(("fixed 30 messages, no context", fixed_policy(30)))
    return rows


def table(scores: Sequence[Score], title: str) -> Table:
    out = Table(title=title)
    out.add_column("policy", no_wrap=True)
    for header in ("links seen", "worst sample", "in window", "calls/100 msgs", "mean size", "largest", "mean context"):
        out.add_column(header, justify="right")
    for s in scores:
        out.add_row(
            s.policy,
            f"{100 * s.seen_share:.1f}%",
            f"{100 * s.worst_sample:.1f}%",
            f"{100 * s.window_share:.1f}%",
            f"{s.calls_per_100:.2f}",
            f"{s.mean_size:.1f}",
            str(s.largest),
            f"{s.mean_context:.1f}",
        )
    return out


@dataclass(frozen=True)
class PaceRow:
    contender: str
    pace: float
    messages: int
    calls: int
    prompt_tokens: int
    links: int
    seen: int
    delays: tuple[float, ...]

    def cells(self) -> tuple[str, ...]:
        if not self.messages:
            return (self.contender, f"{self.pace:g}", "-", "-", "-", "-", "-")
        per = 100 / self.messages
        return (
            self.contender,
            f"{self.pace:g}",
            f"{self.calls * per:.2f}",
            f"{self.prompt_tokens * per:,.0f}",
            f"{100 * self.seen / self.links:.1f}%" if self.links else "-",
            _minutes(percentile(self.delays, 0.5)) if self.delays else "-",
            _minutes(percentile(self.delays, 0.95)) if self.delays else "-",
        )


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min"


def seen_in_calls(sample: IrcSample, closed: list[ClosedWindow], plan: Schedule) -> tuple[int, int]:
    """(reply links, links seen by one call): both in one window, the parent in the reply window's
    earlier messages, or the parent in another window of the same call (a batch)."""
    window_of = {wm.message.id: i for i, w in enumerate(closed) for wm in w.messages}
    contexts = [{wm.message.id for wm in w.context} for w in closed]
    call_of = {wm.message.id: i for i, (_, ws) in enumerate(plan.calls) for w in ws for wm in w.messages}
    links = seen = 0
    for parent, reply in sample.reply_links:
        if parent == reply or parent not in window_of or reply not in window_of:
            continue
        links += 1
        seen += window_of[parent] == window_of[reply] or parent in contexts[window_of[reply]] or call_of[parent] == call_of[reply]
    return links, seen


def pace_rows(samples: Sequence[IrcSample], pace: float, extraction: ExtractionSettings) -> list[PaceRow]:
    """grapevine batched and unbatched, and per-message extraction, on the samples at one pace (each
    sample one guild)."""
    windows = WindowSettings()
    stretched = [stretch(s, pace) for s in samples]
    rows = []
    for name, batching in (("grapevine batched", extraction), ("grapevine unbatched", None)):
        messages = calls = tokens = links = seen = 0
        delays: list[float] = []
        for sample in stretched:
            closed, plan = schedule(sample, windows, batching)
            got_links, got_seen = seen_in_calls(sample, closed, plan)
            links, seen = links + got_links, seen + got_seen
            messages += len(sample.messages)
            calls += len(plan.calls)
            tokens += sum(prompt_tokens(ws) for _, ws in plan.calls)
            delays += plan.delays()
        rows.append(PaceRow(name, pace, messages, calls, tokens, links, seen, tuple(delays)))
    per_message = score("per message", stretched, fixed_policy(1))
    one = sum(prompt_tokens([w]) for s in stretched for w in fixed_policy(1)(s.messages))
    rows.append(PaceRow("per-message extraction", pace, per_message.messages, per_message.windows, one,
                        per_message.links, per_message.seen, (0.0,)))  # fmt: skip
    return rows


def pace_table(rows: Sequence[PaceRow], tokens: str, title: str) -> Table:
    out = Table(title=title)
    out.add_column("contender", no_wrap=True)
    for header in ("pace", "calls/100 msgs", tokens, "links seen", "delay p50", "delay p95"):
        out.add_column(header, justify="right")
    for row in rows:
        out.add_row(*row.cells())
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.windows", description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA_DIR, help="shared data folder (or a folder of *.raw.txt)")
    parser.add_argument("--quick", action="store_true", help="use only the first 2 samples")
    parser.add_argument("--pace", type=float, default=1.0, help="stretch every timestamp this many times (default 1)")
    args = parser.parse_args(argv)
    if args.pace <= 0:
        parser.error("--pace must be above 0")
    try:
        paths = dev_samples(args.data)[: 2 if args.quick else None]
    except FileNotFoundError as exc:
        parser.error(str(exc))
    samples = [load_irc(p) for p in paths]
    scores = [score(name, [stretch(s, args.pace) for s in samples], policy) for name, policy in policies()]
    total = sum(len(s.messages) for s in samples)
    title = f"Conversation windows on {len(samples)} IRC samples ({total} messages, {scores[0].links} reply links)"
    title += f", pace {args.pace:g}" if args.pace != 1 else ""
    out = Console(width=None if sys.stdout.isatty() else 140)
    out.print(table(scores, title))
    extraction = ExtractionSettings()
    rows = [row for pace in PACES for row in pace_rows(samples, pace, extraction)]
    out.print(pace_table(rows, "prompt tok/100 (est.)", f"Extraction by pace (batch: {extraction.batch_messages} messages, "
                               f"{extraction.batch_tokens} tokens, or {extraction.batch_age_seconds / 60:g}-"
                               f"{extraction.batch_age_max_seconds / 60:g} min with the guild's pace)"))  # fmt: skip
    out.print("delay: from a message to the call that extracts it, without the LLM's latency; links seen: both messages "
              "in one window, the parent in its earlier messages, or both in one batch; graphiti-core: see python -m bench.economy")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
