"""A recalled message is scored with the messages that came beside it (`recall.ranking.passages`): a question
asked in the chat and the turn that answers it split the question's words between them, as a chunk retriever
finds a turn by the words of the turns next to it. Pure, no database."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from common.settings import ContextSettings, RecallTuning
from common.tokens import estimate_tokens
from graph.models import MessageView
from recall.assemble import Gathered, assemble, message_line
from recall.ranking import passages

D = datetime(2024, 5, 3, 18, 0, tzinfo=UTC)


def msg(mid: str, text: str, minute: int, author: str = "Caroline") -> MessageView:
    return MessageView(
        id=mid,
        channel_id="c",
        author_id=author.lower(),
        author_name=author,
        author_is_bot=False,
        content=text,
        created_at=D + timedelta(minutes=minute),
    )


def test_a_match_and_its_neighbours_are_each_others_passage_and_a_facts_turns_are_one() -> None:
    messages = [
        msg("m", "what did you call the new puppy?", 10),
        msg("before", "rainy morning", 9),
        msg("after", "Biscuit, after my favourite cookie", 11),
        msg("lone", "off to work", 50),
        msg("source", "I signed up for the pottery class", 30),
        msg("source-1", "any plans this week?", 29),
    ]
    texts = passages(messages, {"before": "m", "after": "m", "source": "fact-1", "source-1": "fact-1"})
    assert texts["m"] == "rainy morning what did you call the new puppy? Biscuit, after my favourite cookie"
    assert texts["after"] == "what did you call the new puppy? Biscuit, after my favourite cookie"
    assert texts["source"] == texts["source-1"] == "any plans this week? I signed up for the pottery class"
    assert texts["lone"] == "off to work"


@given(st.lists(st.sampled_from(["a", "b", "c", "d", "f1", "f2"]), min_size=4, max_size=4))
def test_every_message_has_a_passage_holding_its_own_text_and_only_messages_given(anchors: list[str]) -> None:
    messages = [msg(k, f"text of {k}", i) for i, k in enumerate("abcd")]
    links = {k: a for k, a in zip("abcd", anchors) if a != k}
    texts = passages(messages, {**links, "elsewhere": "a"})
    assert texts.keys() == set("abcd")
    for m in messages:
        assert m.content in texts[m.id]
        assert set(texts[m.id].split()) <= {"text", "of", *"abcd"}


def settings(total: int) -> ContextSettings:
    return ContextSettings(total_tokens=total, recalled_tokens=10000, channel_tokens=0)


def room_of(gathered: Gathered, keys: set[str]) -> int:
    """The tokens of a recalled part holding exactly these messages (dated once, as the context shows them)."""
    held = replace(gathered, recalled=[m for m in gathered.recalled if m.id in keys])
    return assemble(held, settings(10000)).part("recalled").tokens


def tokens(messages: list[MessageView], key: str) -> int:
    return estimate_tokens(message_line(next(m for m in messages if m.id == key), {}))


def test_a_tight_budget_keeps_the_turns_whose_passage_holds_the_question() -> None:
    """The question's words are split between a turn and the answer next to it; a lone turn holds two of them.
    Read alone, the lone turn and the answer outrank the match; read with their passage, the match and its answer
    hold every word and are kept."""
    chat = " while we sat on the porch watching the rain come down over the green hills behind the old red farmhouse, talking for hours"
    recalled = [
        msg("lone", "the puppy chewed my cookie" + chat, 40),
        msg("m", "what did you call the new puppy?" + chat, 10, "Melanie"),
        msg("answer", "Biscuit, named after my favourite cookie" + chat, 11),
    ]
    gathered = Gathered(
        author_id="o",
        author_name="O",
        query="Which cookie is the puppy named after?",
        recalled=recalled,
        anchors={"answer": "m"},
    )
    room = room_of(gathered, {"m", "answer"})
    assert tokens(recalled, "lone") <= tokens(recalled, "m")  # the lone turn fits wherever the match does
    assert assemble(gathered, settings(room)).part("recalled").ids == ["m", "answer"]
    alone = assemble(gathered, settings(room), RecallTuning(passages=False)).part("recalled").ids
    assert "lone" in alone  # read alone, the lone turn outranks the match that asked the question


def books_asked(
    turns: list[tuple[str, str, int]], anchors: dict[str, str], kept: list[str]
) -> tuple[Gathered, list[MessageView], int]:
    """A question asking several things ("What books has Caroline read on her trip?") over a chat where Melanie asked
    which books, then Caroline's `turns` (id, text, minute), each turn as long as the others: what was gathered,
    the messages, and the room the lines `kept` take with the recalled part's header."""
    chat = " while we sat on the porch watching the rain come down over the green hills behind the farmhouse, talking for hours"
    recalled = [msg("asked", "which books did you read on the trip?" + chat, 20, "Melanie")]
    recalled += [msg(key, text + chat, minute) for key, text, minute in turns]
    gathered = Gathered(
        author_id="o",
        author_name="O",
        query="What books has Caroline read on her trip?",
        recalled=recalled,
        anchors=anchors,
    )
    return gathered, recalled, room_of(gathered, set(kept))


def test_a_question_asking_several_things_keeps_the_recalled_turns_its_words_find_first() -> None:
    """Asking several things, facts and turns share the tokens evenly; the turns kept are those whose passage holds
    the question's words best, not the first the reads brought: here the two turns about the books, read with the
    question asked before them, rather than a turn about the weather the reads brought before them."""
    gathered, _, room = books_asked(
        [("weather", "what a morning, the sky is grey", 5), ("first", "Charlotte's Web, and then a mystery novel", 21),
         ("second", "the novel was by Agatha Christie, I read it twice", 22)],
        {"first": "asked", "second": "asked"},
        ["asked", "first", "second"],
    )  # fmt: skip
    assert assemble(gathered, settings(room)).part("recalled").ids == ["asked", "first", "second"]
    gathered_order = assemble(gathered, settings(room), RecallTuning(passages=False)).part("recalled").ids
    assert "weather" in gathered_order  # the first the reads brought, kept when the turns are not ranked


def test_asking_several_things_a_matchs_answer_is_kept_with_it_before_a_weaker_match() -> None:
    """Asking several things, the turns are ranked on their own: the answer to a matching question holds none of the
    question's words, and a turn holding one of them outranked it, so a tight budget kept the question without its
    answer. A match's neighbour counts as much as its match (`with_anchors`), as a chunk keeps a turn with the next."""
    gathered, recalled, room = books_asked(
        [("lone", "I read the news every morning", 5), ("other", "the trip was long, we read maps all day", 40),
         ("answer", "Charlotte's Web, and then a mystery novel", 21)],
        {"answer": "asked"},
        ["asked", "answer"],
    )  # fmt: skip
    assert max(tokens(recalled, "lone"), tokens(recalled, "other")) <= tokens(recalled, "answer")
    assert assemble(gathered, settings(room)).part("recalled").ids == ["asked", "answer"]
