"""The batch prompt: each window its own section and refs, replies across windows named, the answer
split back per window (a window left out or answered twice gets no answer)."""

from __future__ import annotations

from ingest.extraction.batch_prompt import BatchExtraction, build_batch_prompt, split
from ingest.windows import ClosedWindow
from tests.ingest.test_window_prompt import ALICE, BOB, CHARLIE, prompt_input, window, wm
from tests.support.prompt_reader import Prompt, batch_parts


def test_each_window_has_its_own_section_refs_and_context() -> None:
    first = window(wm("m-1", ALICE, "I adopted a cat"), wm("m-2", BOB, "nice", 1))
    second = window(wm("m-3", CHARLIE, "what is its name?", 30, reply_to_id="m-1"), context=(wm("m-0", BOB, "hi all", -5),))
    messages, tables = build_batch_prompt([prompt_input(first), prompt_input(second)])
    request = {"messages": messages}
    assert "Several windows" in messages[0]["content"]
    parts = batch_parts(request)
    assert [head for head, _ in parts] == ["W1", "W2"]
    one, two = (Prompt(part) for _, part in parts)
    assert [p.name for p in one.participants.values()] == ["Alice", "Bob"]
    assert [p.name for p in two.participants.values()] == ["Charlie", "Bob"], "refs start again at U1"
    assert [m.content for m in two.context.values()] == ["hi all"]
    assert two.messages["m1"].reply_to == "W1 m1", "the replied-to message is in the batch: said where"
    assert [t.messages["m1"].message.id for t in tables] == ["m-1", "m-3"]


def test_earlier_messages_are_shown_once_per_batch() -> None:
    """A quiet channel's small windows follow each other: each one's earlier messages are the ones before it,
    which the batch shows already; a window of another channel keeps its own."""
    c = [wm(f"c-{i}", BOB, f"earlier {i}", i - 10) for i in range(5)]
    first = window(wm("m-1", ALICE, "I adopted a cat", 0), context=tuple(c))
    second = window(wm("m-2", BOB, "nice", 5), context=(*c[2:], *first.messages))
    third = window(
        wm("m-3", CHARLIE, "what is its name?", 9, reply_to_id="c-4"), context=(*c[3:], *first.messages, *second.messages)
    )
    elsewhere = ClosedWindow("c2", "g1", (wm("m-4", CHARLIE, "hello", 9),), (wm("c-9", ALICE, "other channel", 1),), "quiet")
    messages, tables = build_batch_prompt([prompt_input(w) for w in (first, second, third, elsewhere)])
    one, two, three, four = (Prompt(part) for _, part in batch_parts({"messages": messages}))
    assert [m.content for m in one.context.values()] == [f"earlier {i}" for i in range(5)] and one.not_repeated is None
    assert two.context == {} and two.not_repeated == (4, "W1")
    assert three.context == {} and three.not_repeated == (4, "W1, W2")
    assert three.messages["m1"].reply_to == "W1 c5", "a reply to an earlier message shown above says where"
    assert [m.content for m in four.context.values()] == ["other channel"] and four.not_repeated is None
    assert [p.name for p in two.participants.values()] == ["Bob"], "no participant of earlier messages not shown"
    assert [list(t.context) for t in tables] == [["c1", "c2", "c3", "c4", "c5"], [], [], ["c1"]]


def test_the_answer_is_split_back_per_window() -> None:
    answer = BatchExtraction.model_validate({"windows": [
        {"window": "W2", "summary": "two", "entities": [], "facts": []},
        {"window": "w1", "summary": "one", "entities": [], "facts": []},
        {"window": "W3", "summary": "three", "entities": [], "facts": []},
        {"window": "W3", "summary": "three again", "entities": [], "facts": []},
    ]})  # fmt: skip
    got = split(answer, 4)
    assert [a.summary if a else None for a in got] == ["one", "two", None, None]
