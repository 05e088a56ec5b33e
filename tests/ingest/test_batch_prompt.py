"""The batch prompt: each window its own section and refs, replies across windows named, the answer
split back per window (a window left out or answered twice gets no answer), and the batch rule."""

from __future__ import annotations

from datetime import timedelta

from common.settings import ExtractionSettings
from ingest.batch_prompt import BatchExtraction, build_batch_prompt, split
from ingest.batching import Queued, batches
from tests.ingest.test_extraction import ALICE, BOB, CHARLIE, T0, prompt_input, window, wm
from tests.support.prompt_reader import Prompt, batch_parts


def test_each_window_has_its_own_section_refs_and_context() -> None:
    first = window(wm("m-1", ALICE, "I adopted a cat"), wm("m-2", BOB, "nice", 1))
    second = window(wm("m-3", CHARLIE, "what is its name?", 30, reply_to_id="m-1"), context=(first.messages[1],))
    messages, tables = build_batch_prompt([prompt_input(first), prompt_input(second)])
    request = {"messages": messages}
    assert "Several windows" in messages[0]["content"]
    parts = batch_parts(request)
    assert [head for head, _ in parts] == ["W1", "W2"]
    one, two = (Prompt(part) for _, part in parts)
    assert [p.name for p in one.participants.values()] == ["Alice", "Bob"]
    assert [p.name for p in two.participants.values()] == ["Charlie", "Bob"], "refs start again at U1"
    assert [m.content for m in two.context.values()] == ["nice"]
    assert two.messages["m1"].reply_to == "W1 m1", "the replied-to message is in the batch: said where"
    assert [t.messages["m1"].message.id for t in tables] == ["m-1", "m-3"]


def test_the_answer_is_split_back_per_window() -> None:
    answer = BatchExtraction.model_validate({"windows": [
        {"window": "W2", "summary": "two", "entities": [], "facts": []},
        {"window": "w1", "summary": "one", "entities": [], "facts": []},
        {"window": "W3", "summary": "three", "entities": [], "facts": []},
        {"window": "W3", "summary": "three again", "entities": [], "facts": []},
    ]})  # fmt: skip
    got = split(answer, 4)
    assert [a.summary if a else None for a in got] == ["one", "two", None, None]


def q(key: str, minutes: float, messages: int, tokens: int = 100) -> Queued:
    return Queued(key, T0 + timedelta(minutes=minutes), messages, tokens)


def test_a_batch_goes_when_full_by_messages_or_tokens_or_when_its_oldest_is_old() -> None:
    settings = ExtractionSettings(batch_messages=10, batch_tokens=1000, batch_age_seconds=3600)
    now = T0 + timedelta(minutes=30)
    assert batches([q("a", 0, 4), q("b", 5, 4)], settings, now) == [], "not full, not old"
    assert [[x.key for x in b] for b in batches([q("a", 0, 4), q("b", 5, 6), q("c", 9, 1)], settings, now)] == [["a", "b"]]
    by_tokens = batches([q("a", 0, 1, 600), q("b", 1, 1, 600)], settings, now)
    assert [[x.key for x in b] for b in by_tokens] == [["a"]], "b would take the batch past its tokens"
    old = batches([q("a", 0, 1), q("b", 50, 1)], settings, T0 + timedelta(minutes=60))
    assert [[x.key for x in b] for b in old] == [["a", "b"]]
