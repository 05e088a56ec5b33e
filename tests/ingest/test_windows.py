"""The pure window core: WindowBuffer, ClosedWindow, replay, and a replay of real IRC chat."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest

from common.settings import WindowSettings
from graph.models import Message, User
from ingest.replay import replay
from ingest.windows import ClosedWindow, WindowBuffer, WindowMessage

T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


def settings(**overrides: float) -> WindowSettings:
    values = dict(quiet_seconds=180, max_messages=30, max_age_seconds=1800, buffer_max_messages=2000, context_messages=10)
    return WindowSettings(**{**values, **overrides})


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def wm(mid: str, seconds: float, channel: str = "c1", author: str = "u1") -> WindowMessage:
    user = User(id=author, name=author, display_name=author.upper())
    message = Message(id=mid, guild_id="g1", channel_id=channel, author_id=author, content=f"text {mid}", created_at=at(seconds))
    return WindowMessage(message, user)


def ids(window: ClosedWindow) -> list[str]:
    return [w.message.id for w in window.messages]


def context_ids(window: ClosedWindow) -> list[str]:
    return [w.message.id for w in window.context]


def feed(buffer: WindowBuffer, messages: list[WindowMessage]) -> list[ClosedWindow]:
    """Drive the buffer as the live bot does: close what is due, then add, at each message's time."""
    closed: list[ClosedWindow] = []
    for m in messages:
        closed += buffer.due(m.message.created_at)
        closed += buffer.add(m, m.message.created_at)
    return closed


def test_closes_after_quiet_time() -> None:
    buffer = WindowBuffer(settings())
    assert feed(buffer, [wm("1", 0), wm("2", 60)]) == []
    assert buffer.next_deadline() == at(240)
    assert buffer.due(at(239)) == []
    [window] = buffer.due(at(240))
    assert (window.reason, ids(window), window.context) == ("quiet", ["1", "2"], ())
    assert (window.started_at, window.ended_at) == (at(0), at(60))
    assert (buffer.open_windows(), buffer.buffered(), buffer.next_deadline()) == (0, 0, None)


def test_closes_at_max_messages() -> None:
    buffer = WindowBuffer(settings(max_messages=3))
    assert buffer.add(wm("1", 0), at(0)) == []
    assert buffer.add(wm("2", 1), at(1)) == []
    [window] = buffer.add(wm("3", 2), at(2))
    assert (window.reason, ids(window)) == ("max_messages", ["1", "2", "3"])
    assert buffer.add(wm("4", 3), at(3)) == []
    assert (buffer.open_windows(), buffer.buffered()) == (1, 1)


def test_continuous_talk_closes_at_max_age() -> None:
    buffer = WindowBuffer(settings(max_messages=100))
    closed = feed(buffer, [wm(str(i), 60 * i) for i in range(41)])  # one message a minute, 40 min
    [window] = closed
    assert window.reason == "max_age"
    assert ids(window) == [str(i) for i in range(30)]  # 0..29 min; the one at 30 min opens the next
    assert buffer.buffered() == 11
    assert buffer.next_deadline() == at(2400 + 180)  # quiet after its last message, before its max age
    [rest] = buffer.due(at(2580))
    assert (rest.reason, ids(rest)[0], ids(rest)[-1], len(rest.context)) == ("quiet", "30", "40", 10)


def test_global_cap_closes_oldest_windows_first() -> None:
    buffer = WindowBuffer(settings(buffer_max_messages=5))
    feed(buffer, [wm("a1", 0, "a"), wm("a2", 10, "a"), wm("b1", 20, "b"), wm("b2", 30, "b"), wm("c1", 40, "c")])
    assert (buffer.open_windows(), buffer.buffered()) == (3, 5)
    [first] = buffer.add(wm("c2", 50, "c"), at(50))
    assert (first.reason, first.channel_id, ids(first)) == ("buffer_cap", "a", ["a1", "a2"])
    assert (buffer.open_windows(), buffer.buffered()) == (2, 4)
    assert buffer.add(wm("a3", 60, "a"), at(60)) == []
    [second] = buffer.add(wm("b3", 70, "b"), at(70))  # b (opened at 20) is now the oldest window
    assert (second.reason, ids(second)) == ("buffer_cap", ["b1", "b2", "b3"])
    assert buffer.buffered() == 3


def test_channels_are_windowed_separately() -> None:
    buffer = WindowBuffer(settings())
    feed(buffer, [wm("a1", 0, "a"), wm("b1", 30, "b"), wm("a2", 60, "a"), wm("b2", 90, "b")])
    assert (buffer.open_windows(), buffer.next_deadline()) == (2, at(240))
    a, b = buffer.due(at(400))
    assert (a.channel_id, ids(a), b.channel_id, ids(b)) == ("a", ["a1", "a2"], "b", ["b1", "b2"])
    feed(buffer, [wm("a3", 500, "a")])
    [a_next] = buffer.due(at(1000))
    assert (ids(a_next), context_ids(a_next)) == (["a3"], ["a1", "a2"])  # nothing from channel b


def test_edits_and_deletions_are_reflected() -> None:
    buffer = WindowBuffer(settings())
    feed(buffer, [wm("1", 0), wm("2", 10), wm("3", 20)])
    assert buffer.edit("2", "changed", at(30)) is True
    assert buffer.edit("nope", "x", at(30)) is False
    assert buffer.delete("3") is True
    assert buffer.delete("3") is False
    [window] = buffer.due(at(1000))
    assert ids(window) == ["1", "2"]
    assert (window.messages[1].message.content, window.messages[1].message.edited_at) == ("changed", at(30))
    # A message already closed is only context now: updated there too, but the caller must still
    # apply the change to the store (False).
    feed(buffer, [wm("4", 2000)])
    assert buffer.edit("1", "edited later", at(2001)) is False
    assert buffer.delete("2") is False
    [later] = buffer.due(at(3000))
    assert [w.message.content for w in later.context] == ["edited later"]


def test_window_emptied_by_deletions_disappears() -> None:
    buffer = WindowBuffer(settings())
    feed(buffer, [wm("1", 0), wm("2", 10)])
    assert buffer.delete("1") and buffer.delete("2")
    assert (buffer.open_windows(), buffer.buffered(), buffer.next_deadline(), buffer.due(at(9999))) == (0, 0, None, [])


def test_drop_user_forgets_open_and_context_messages() -> None:
    buffer = WindowBuffer(settings())
    feed(buffer, [wm("1", 0, author="alice"), wm("2", 10, author="bob")])
    buffer.due(at(1000))  # both become context of the channel's next window
    feed(buffer, [wm("3", 2000, author="alice"), wm("4", 2010, author="bob"), wm("5", 2020, author="alice")])
    feed(buffer, [wm("x1", 2030, "other", author="alice")])
    assert buffer.drop_user("alice") == 3
    assert (buffer.open_windows(), buffer.buffered()) == (1, 1)  # channel "other" held only alice
    [window] = buffer.due(at(5000))
    assert (ids(window), context_ids(window), window.participant_ids) == (["4"], ["2"], ("bob",))
    assert buffer.drop_user("alice") == 0


def test_context_carries_the_channels_last_messages() -> None:
    buffer = WindowBuffer(settings(context_messages=3))
    feed(buffer, [wm(str(i), 10 * i) for i in range(5)])
    first = buffer.due(at(1000))[0]
    feed(buffer, [wm("5", 2000), wm("6", 2010)])
    second = buffer.due(at(3000))[0]
    feed(buffer, [wm("7", 4000)])
    third = buffer.due(at(5000))[0]
    assert context_ids(first) == []
    assert context_ids(second) == ["2", "3", "4"]
    assert context_ids(third) == ["4", "5", "6"]  # spans two earlier windows
    none = list(replay([wm("1", 0), wm("2", 1000)], settings(context_messages=0)))
    assert [w.context for w in none] == [(), ()]


def test_key_is_stable_and_late_messages_slot_in_order() -> None:
    buffer = WindowBuffer(settings())
    feed(buffer, [wm("m1", 0, author="u2"), wm("m3", 20)])
    assert buffer.add(wm("m2", 10, author="u3"), at(30)) == []  # late: created before m3
    assert buffer.add(wm("m2", 10, author="u3"), at(31)) == []  # redelivered: ignored
    [window] = buffer.close_all()
    assert (window.key, window.reason, ids(window)) == ("c1:m1:m3", "shutdown", ["m1", "m2", "m3"])
    assert window.participant_ids == ("u2", "u3", "u1")
    messages = [wm("m1", 0, author="u2"), wm("m2", 10, author="u3"), wm("m3", 20)]
    replayed = [w.key for w in replay(messages, settings())]
    assert replayed == [w.key for w in replay(messages, settings(context_messages=0))] == ["c1:m1:m3"]


def test_close_all_is_oldest_first() -> None:
    buffer = WindowBuffer(settings())
    feed(buffer, [wm("b1", 0, "b"), wm("a1", 5, "a")])
    assert [(w.channel_id, w.reason) for w in buffer.close_all()] == [("b", "shutdown"), ("a", "shutdown")]
    feed(buffer, [wm("c1", 10, "c")])
    with pytest.raises(ValueError, match="unknown close reason 'bogus'"):
        buffer.close_all("bogus")


def test_replay_closes_the_rest_by_deadline_not_shutdown() -> None:
    talk = [wm(str(i), 60 * i) for i in range(35)] + [wm("late", 60 * 34 + 30, "b")]
    windows = list(replay(talk, settings(max_messages=100)))
    assert [(w.channel_id, w.reason, len(w.messages)) for w in windows] == [
        ("c1", "max_age", 30),
        ("c1", "quiet", 5),
        ("b", "quiet", 1),
    ]


def test_replay_of_a_real_irc_sample() -> None:
    datasets = pytest.importorskip("tests.support.datasets")
    raw = datasets.DATA_DIR / "irc" / "dev" / "2009-10-01_17.raw.txt"
    if not raw.is_file():
        pytest.skip(f"shared IRC data missing: {raw} (expected at ../shared/data next to the repository)")
    sample = datasets.load_irc(raw)
    assert (sample.name, len(sample.messages), len(sample.reply_links)) == ("2009-10-01_17", 1215, 265)
    first = sample.messages[0].message
    annotated = next(m.message for m in sample.messages if m.message.id == "1000")
    assert (first.id, first.created_at) == ("0", datetime(2009, 10, 1, 14, 3, tzinfo=UTC))
    assert annotated.created_at == datetime(2009, 10, 1, 17, 0, tzinfo=UTC)
    windows = list(replay(sample.messages, settings()))
    assert sum(len(w.messages) for w in windows) == 1215
    assert len(windows) == 41
    assert 100 * len(windows) / len(sample.messages) < 5
    assert Counter(w.reason for w in windows) == Counter(max_messages=40, quiet=1)
    assert max(len(w.messages) for w in windows) == 30


def test_irc_loader_rolls_over_midnight_and_keeps_order() -> None:
    datasets = pytest.importorskip("tests.support.datasets")
    raw = datasets.DATA_DIR / "irc" / "dev" / "2011-11-13_02.raw.txt"
    if not raw.is_file():
        pytest.skip(f"shared IRC data missing: {raw} (expected at ../shared/data next to the repository)")
    sample = datasets.load_irc(raw)
    byid = {m.message.id: m for m in sample.messages}
    assert [byid[i].message.created_at for i in ("0", "1", "2")] == [
        datetime(2011, 11, 12, 21, 29, 0, tzinfo=UTC),
        datetime(2011, 11, 12, 21, 29, 30, tzinfo=UTC),  # two messages in 21:29
        datetime(2011, 11, 12, 21, 30, 0, tzinfo=UTC),
    ]
    assert byid["1000"].message.created_at == datetime(2011, 11, 13, 2, 0, tzinfo=UTC)
    assert (byid["0"].author.id, byid["0"].message.channel_id) == ("irc:monsemannen", "irc:2011-11-13_02")
    times = [m.message.created_at for m in sample.messages]
    assert all(a < b for a, b in zip(times, times[1:]))
    assert sum(1 for parent, reply in sample.reply_links if parent != reply) == 217
