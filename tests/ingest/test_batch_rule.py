"""The batch rule: which closed windows of a guild go together in one call and when (full by messages or tokens,
or its oldest message as old as the guild's pace allows)."""

from __future__ import annotations

from datetime import datetime, timedelta

from common.settings import ExtractionSettings
from ingest.extraction.batch_prompt import BatchExtraction
from ingest.extraction.batch_rule import Queued, age_limit, batch_tokens, batches, queued
from tests.ingest.test_window_prompt import T0


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
