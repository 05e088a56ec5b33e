"""Lines that would repeat what the line above says: facts its reporters said the same day, recalled messages of
the same day. Pure, no database."""

from __future__ import annotations

from datetime import timedelta

from common.settings import ContextSettings, RecallTuning
from common.tokens import estimate_tokens
from graph.models import MessageView
from recall.assemble import Gathered, assemble, said_in_full
from tests.support.fact_views import D, fact


def msg(mid: str, text: str, minutes: int) -> MessageView:
    return MessageView(mid, "c", "melanie", "Melanie", False, text, D + timedelta(minutes=minutes))


def settings(total: int, related: int | None = None) -> ContextSettings:
    return ContextSettings(
        total_tokens=total,
        author_tokens=total,
        related_tokens=total if related is None else related,
        recalled_tokens=total,
        channel_tokens=total,
    )


FACTS = [
    fact("a", "Caroline went hiking in the hills"),
    fact("b", "Caroline adopted a dog", day=1),
    fact("c", "Caroline painted a sunset"),
    fact("d", "Caroline joined a choir", reporter="Melanie"),
]


def test_facts_said_by_the_same_members_on_the_same_day_share_one_attribution() -> None:
    ctx = assemble(Gathered(author_id="o", author_name="O", query="", related=[FACTS]), settings(2000))
    assert ctx.part("related").lines == [
        "- Caroline said on 3 May 2024: Caroline went hiking in the hills",
        "  - Caroline painted a sunset",  # said by Caroline that day too: under the first
        "- Caroline said on 4 May 2024: Caroline adopted a dog",
        "- Melanie said on 3 May 2024 that: Caroline joined a choir",
    ]
    assert ctx.part("related").ids == ["a", "c", "b", "d"]
    assert ctx.total_tokens == estimate_tokens(ctx.render())
    ungrouped = assemble(
        Gathered(author_id="o", author_name="O", query="", related=[FACTS]),
        settings(2000),
        RecallTuning(grouped=False),
    )
    assert ungrouped.part("related").lines[1] == "- Caroline said on 4 May 2024: Caroline adopted a dog"


def test_a_budget_holds_more_facts_when_their_attribution_is_said_once() -> None:
    facts = [fact(f"f{i}", f"Caroline went to support group meeting number {i}") for i in range(8)]
    gathered = Gathered(author_id="o", author_name="O", query="support group meetings", related=[facts])
    budget = assemble(gathered, settings(2000), RecallTuning(grouped=False)).part("related").tokens // 2
    ungrouped = assemble(gathered, settings(2000, budget), RecallTuning(grouped=False))
    grouped = assemble(gathered, settings(2000, budget))
    assert grouped.part("related").items > ungrouped.part("related").items
    assert grouped.total_tokens == estimate_tokens(grouped.render()) <= budget


def test_a_trimmed_group_still_says_who_said_its_facts() -> None:
    """Whichever facts of a group a budget keeps, the first shown says who said them, and the tokens counted are
    those shown: at every total budget, with the recalled messages trimmed beside them."""
    facts = [fact(f"f{i}", f"Caroline likes {'long ' * i}walks by the sea") for i in range(5)]
    recalled = [msg(f"m{i}", f"a walk by the sea number {i}", i) for i in range(5)]
    gathered = Gathered(author_id="o", author_name="O", query="walks sea", related=[facts], recalled=recalled)
    for total in range(100, 260, 3):
        ctx = assemble(gathered, settings(total))
        lines = ctx.part("related").lines
        assert not lines or lines[0].startswith("- Caroline said on 3 May 2024:")
        assert ctx.total_tokens == estimate_tokens(ctx.render()) <= total


def test_recalled_messages_of_one_day_are_dated_once() -> None:
    recalled = [msg("m1", "the support group met at the library", 1), msg("m2", "the support group was moving", 2)]
    recalled.append(MessageView("m3", "c", "melanie", "Melanie", False, "support group again", D + timedelta(days=2)))
    gathered = Gathered(author_id="o", author_name="O", query="support group", recalled=recalled)
    ctx = assemble(gathered, settings(2000))
    assert ctx.part("recalled").lines == [
        "[3 May 2024 18:01] Melanie: the support group met at the library",
        "[18:02] Melanie: the support group was moving",
        "[5 May 2024 18:00] Melanie: support group again",
    ]
    assert ctx.total_tokens == estimate_tokens(ctx.render())


def test_a_fact_that_follows_another_reads_in_full_with_its_attribution() -> None:
    ctx = assemble(Gathered(author_id="o", author_name="O", query="", related=[FACTS]), settings(2000))
    assert said_in_full(ctx.part("related").lines) == [
        "- Caroline said on 3 May 2024: Caroline went hiking in the hills",
        "- Caroline said on 3 May 2024: Caroline painted a sunset",
        "- Caroline said on 4 May 2024: Caroline adopted a dog",
        "- Melanie said on 3 May 2024 that: Caroline joined a choir",
    ]
