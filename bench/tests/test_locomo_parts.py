"""bench.locomo's per-part table: each part's tokens, the tokens of its lines holding evidence, the evidence it holds."""

from __future__ import annotations

from bench.locomo_parts import PartTally
from common.tokens import estimate_tokens
from recall.assemble import ContextPart, ReplyContext


def part(name: str, header: str, lines: list[str], ids: list[str]) -> ContextPart:
    tokens = estimate_tokens(header) + sum(estimate_tokens(line) for line in lines)
    return ContextPart(name, lines, tokens, len(lines), 0, header, ids)


def test_each_part_counts_its_tokens_and_the_evidence_it_holds() -> None:
    facts = part("related", "## facts", ["- Eve said: Eve paints", "- Eve said: Eve swims"], ["f1", "f2"])
    channel = part("channel", "## channel", ["[summary] they talked", "[1 May] Eve: I paint"], ["summary:x", "m1"])
    ctx = ReplyContext([facts, channel], facts.tokens + channel.tokens, {"f1", "f2"}, {"m1"})
    turns = {"f1": ["D1:1"], "f2": ["D1:2"], "m1": ["D1:1"]}
    tally = PartTally(budgets=(1000,))
    tally.add(1000, ctx, ["D1:1", "D1:3"], lambda key: turns.get(key, []))
    tally.add(500, ctx, ["D1:1"], lambda key: turns.get(key, []))  # not a budget of the table: not counted
    assert sum(tally.tokens[(1000, n)][0] for n in ("related facts", "channel latest", "summaries")) == ctx.total_tokens
    assert tally.paying[(1000, "related facts")] == [estimate_tokens("- Eve said: Eve paints")]
    assert tally.found[(1000, "related facts")] == [1] and tally.alone[(1000, "related facts")] == [0]  # m1 holds it too
    assert tally.found[(1000, "summaries")] == [0] and tally.evidence == {1000: 2}
