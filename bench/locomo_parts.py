"""`bench.locomo`'s per-part table: what each part of the reply context spends and what it finds.

For every question and budget, each part of the assembled context (the related and author facts, the recalled
messages, the channel's latest messages, its summaries, the thread) is counted: the tokens it took, the tokens of its
lines that hold an evidence turn of the question (a fact by the turns it was drawn from, a message by itself; a
summary never does), and the evidence turns it holds, alone or with another part. A part whose tokens find nothing
is what a budget can give to another.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bench.common import mean, table
from common.tokens import estimate_tokens
from recall.assemble import ReplyContext

PARTS = ("related facts", "author facts", "recalled messages", "channel latest", "summaries", "thread")
_SUMMARY = "summary:"


@dataclass
class PartTally:
    """(budget, part) -> per question: tokens, tokens of lines holding evidence, evidence turns held, held by it alone;
    only at `budgets` (0: no budget)."""

    budgets: tuple[int, ...] = ()

    tokens: dict[tuple[int, str], list[int]] = field(default_factory=lambda: defaultdict(list))
    paying: dict[tuple[int, str], list[int]] = field(default_factory=lambda: defaultdict(list))
    found: dict[tuple[int, str], list[int]] = field(default_factory=lambda: defaultdict(list))
    alone: dict[tuple[int, str], list[int]] = field(default_factory=lambda: defaultdict(list))
    evidence: dict[int, int] = field(default_factory=lambda: defaultdict(int))  # budget -> evidence turns asked

    def add(self, budget: int, ctx: ReplyContext, evidence: Sequence[str], turns_of: Callable[[str], Iterable[str]]) -> None:
        """One question's context at `budget`; `turns_of` gives the evidence-turn ids a line's key stands for."""
        if budget not in self.budgets:
            return
        wanted = set(evidence)
        held: dict[str, set[str]] = {}
        for name in PARTS:
            held[name] = set()
            self.tokens[(budget, name)].append(0)
            self.paying[(budget, name)].append(0)
        for part in ctx.parts:
            for key, line in zip(part.ids, part.lines):
                name = _part_name(part.name, key)
                tokens = estimate_tokens(line)
                self.tokens[(budget, name)][-1] += tokens
                hits = wanted.intersection(turns_of(key))
                if hits:
                    self.paying[(budget, name)][-1] += tokens
                    held[name] |= hits
            if part.lines:  # the header goes to the part's first kind of line
                self.tokens[(budget, _part_name(part.name, part.ids[0]))][-1] += part.tokens - sum(
                    estimate_tokens(line) for line in part.lines
                )
        for name in PARTS:
            others = set().union(*(held[o] for o in PARTS if o != name))
            self.found[(budget, name)].append(len(held[name]))
            self.alone[(budget, name)].append(len(held[name] - others))
        self.evidence[budget] += len(wanted)


def _part_name(part: str, key: str) -> str:
    if part == "channel":
        return "summaries" if key.startswith(_SUMMARY) else "channel latest"
    return {"related": "related facts", "author": "author facts", "recalled": "recalled messages"}.get(part, part)


def report(out: Any, tally: PartTally, budgets: Sequence[int]) -> None:
    rows = []
    for budget in [*budgets, 0]:
        total = tally.evidence.get(budget, 0)
        if not total:
            continue
        for name in PARTS:
            spent = tally.tokens.get((budget, name), [])
            if not any(spent):
                continue
            paying = sum(tally.paying[(budget, name)])
            rows.append(
                [
                    budget or "none",
                    name,
                    f"{mean(spent):.0f}",
                    f"{100 * paying / max(1, sum(spent)):.0f}%",
                    f"{100 * sum(tally.found[(budget, name)]) / total:.1f}%",
                    f"{100 * sum(tally.alone[(budget, name)]) / total:.1f}%",
                ]
            )
    out.print(
        table(
            "LoCoMo reply context by part (categories 1-4): tokens spent and evidence found by each part",
            ["budget", "part", "tokens (mean)", "tokens on evidence", "evidence turns held", "held by it alone"],
            rows,
            left=2,
        )
    )
    out.print(
        "tokens on evidence: the share of the part's tokens (headers included) on lines that hold an evidence turn of "
        "the question (a fact drawn from it, or the turn itself); evidence turns held: the share of all evidence turns "
        "the part holds, and held by it alone: those no other part holds."
    )
