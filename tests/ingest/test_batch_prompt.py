"""The batch prompt: each window its own section and refs, replies across windows named, the answer
split back per window (a window left out or answered twice gets no answer), and the batch rule."""

from __future__ import annotations

from datetime import datetime, timedelta

from common.settings import ExtractionSettings
from ingest.batch_prompt import BatchExtraction, build_batch_prompt, split
from ingest.batching import Queued, age_limit, batch_tokens, batches, queued
from ingest.windows import ClosedWindow
from tests.ingest.test_extraction import ALICE, BOB, CHARLIE, T0, prompt_input, window, wm
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


def test_a_batch_counts_the_earlier_messages_of_a_channel_once() -> None:
    settings = ExtractionSettings(batch_messages=30, batch_tokens=1000, batch_age_seconds=3600)
    now = T0 + timedelta(minutes=30)
    small = [queued(f"w{i}", "c1", T0 + timedelta(minutes=i), ["a few words here"], context_messages=15) for i in range(6)]
    assert batch_tokens(small[:2]) == 2 * small[0].tokens + small[0].earlier_tokens
    assert [len(b) for b in batches(small, settings, now, timedelta(minutes=20))] == [6], "one channel: its earlier messages once"
    apart = [queued(f"w{i}", f"c{i}", T0 + timedelta(minutes=i), ["a few words here"], 15) for i in range(6)]
    assert [len(b) for b in batches(apart, settings, now, timedelta(minutes=20))] == [3, 3], "each channel shows its own"


def at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


def test_a_quiet_guild_waits_longer_with_its_pace_within_bounds() -> None:
    settings = ExtractionSettings(batch_messages=10, batch_age_seconds=3600, batch_age_max_seconds=12 * 3600)
    assert age_limit([], settings) == timedelta(hours=1), "nothing heard yet: the least"
    assert age_limit([(at(0), at(5), 4)], settings) == timedelta(hours=1), "fewer than a batch: the least"
    busy = [(at(i), at(i + 1), 5) for i in range(0, 20, 2)]  # 10 messages in 3 minutes
    assert age_limit(busy, settings) == timedelta(hours=1)
    quiet = [(at(60 * i), at(60 * i + 2), 2) for i in range(8)]  # the newest 10 messages over 4 h 2 min
    assert age_limit(quiet, settings) == timedelta(minutes=2 * 242), "twice the time its last batch took"
    silent = [(at(600 * i), at(600 * i + 1), 3) for i in range(5)]
    assert age_limit(silent, settings) == timedelta(hours=12), "at most the bound"
    queue = [q("a", 0, 2), q("b", 60, 2)]
    assert batches(queue, settings, at(200), age_limit(quiet, settings)) == [], "a quiet guild's batch still waits"
    assert batches(queue, settings, at(200), age_limit(busy, settings)) != [], "a busy guild's would have gone"


def test_a_batch_of_one_message_windows_fills_by_messages() -> None:
    """A quiet guild's windows hold a message or two: a default batch's worth of them is one call, not two."""
    settings = ExtractionSettings()
    small = [q(f"w{i}", i, 1, 20) for i in range(settings.batch_messages)]
    assert [len(b) for b in batches(small, settings, at(settings.batch_messages))] == [settings.batch_messages]
    assert BatchExtraction.model_json_schema()["properties"]["windows"]["maxItems"] >= settings.batch_messages
