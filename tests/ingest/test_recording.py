"""Messages recorded in short ticks (ingest/recording.py) through the live windows, on the real engine: many
channels at once, nothing lost, written before a window goes on and at shutdown, never awaited by the handler."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from common.settings import ExtractionSettings, WindowSettings
from graph.models import Channel, EpisodeStatus, Guild, Message, User
from graph.privacy.guards.consent import Consent
from graph.reads.backlog import episode_messages, episodes_by_status, messages_before
from graph.reads.stats import guild_counts
from graph.store import GraphStore
from graph.writes.discord_records import upsert_channel, upsert_guild, upsert_users
from graph.writes.messages import record_messages
from ingest.ingestor import Ingestor
from ingest.live import LiveWindows
from ingest.recording import MessageRecorder
from tests.support.scripted import Clock

GUILD = "830000000000000001"
CHANNELS = [f"8310000000000000{n:02d}" for n in range(20)]
PEOPLE = [User(id=f"83200000000000{n:04d}", name=f"p{n}", display_name=f"P{n}") for n in range(8)]
T0 = datetime(2025, 2, 3, 10, 0, tzinfo=UTC)
NEVER = 3600.0  # a tick that does not come during a test: only the flushes write


def msg(n: int, channel: str, who: User, seconds: float) -> Message:
    return Message(id=f"83300000000{n:07d}", guild_id=GUILD, channel_id=channel, author_id=who.id,
                   content=f"message {n} in {channel[-2:]}", created_at=T0 + timedelta(seconds=seconds))  # fmt: skip


@pytest.fixture
async def place(store: GraphStore) -> tuple[GraphStore, Consent]:
    await upsert_guild(store, Guild(id=GUILD, name="busy"))
    for cid in CHANNELS:
        await upsert_channel(store, Channel(id=cid, guild_id=GUILD, name=cid))
    consent = Consent(store)
    await consent.load()
    return store, consent


def live_windows(store: GraphStore, consent: Consent, clock: Clock, tick: float) -> tuple[LiveWindows, MessageRecorder]:
    recorder = MessageRecorder(store, tick_seconds=tick)
    ingestor = Ingestor(store, None, ExtractionSettings(), WindowSettings())  # no LLM: windows stay pending
    return LiveWindows(store, ingestor, consent, WindowSettings(), clock=clock, recorder=recorder), recorder


async def stored(store: GraphStore) -> int:
    return (await guild_counts(store, GUILD))["messages"]


async def test_many_channels_at_once_are_all_recorded_in_batches(place: tuple[GraphStore, Consent]) -> None:
    store, consent = place
    clock = Clock(T0)
    live, recorder = live_windows(store, consent, clock, tick=0.02)
    await live.start()
    messages = [msg(n, CHANNELS[n % 20], PEOPLE[n % 8], n * 0.01) for n in range(500)]
    handed = await asyncio.gather(*(live.on_message(m, PEOPLE[n % 8]) for n, m in enumerate(messages)))
    assert all(handed)
    for _ in range(500):  # the ticks write them; wait at most 50 s on a loaded machine
        if recorder.recorded == len(messages):
            break
        await asyncio.sleep(0.1)
    assert await stored(store) == 500
    assert recorder.batches < 60  # batched: hundreds of messages per write, not one each
    assert live.stats()["buffered_messages"] == 500  # and every one is in its channel's open window
    await live.stop()


async def test_handing_a_message_over_does_not_wait_for_the_graph(place: tuple[GraphStore, Consent]) -> None:
    store, consent = place
    live, recorder = live_windows(store, consent, Clock(T0), tick=NEVER)
    await live.start()
    handed = 3 * (WindowSettings().max_messages - 1)  # no window closes: a closing one writes (in its own task)
    for n in range(handed):
        assert await live.on_message(msg(n, CHANNELS[n % 3], PEOPLE[0], n), PEOPLE[0])
    assert recorder.pending() == handed and recorder.batches == 0  # no write was awaited by the handler
    assert await stored(store) == 0
    await live.stop()
    assert await stored(store) == handed


async def test_a_window_is_written_before_it_goes_on(place: tuple[GraphStore, Consent]) -> None:
    store, consent = place
    clock = Clock(T0)
    live, recorder = live_windows(store, consent, clock, tick=NEVER)
    await live.start()
    for n in range(5):
        clock.set(T0 + timedelta(seconds=n))
        await live.on_message(msg(n, CHANNELS[0], PEOPLE[n % 2], n), PEOPLE[n % 2])
    await live.on_message(msg(9, CHANNELS[1], PEOPLE[3], 4), PEOPLE[3])  # another channel, still open
    clock.advance(WindowSettings().quiet_seconds + 1)
    await live.tick()
    await asyncio.gather(*list(live._tasks))  # the window's own task: no drain, no tick of the recorder
    assert recorder.pending() == 0
    assert await stored(store) == 6
    [episode] = [
        e for e in await episodes_by_status(store, [EpisodeStatus.PENDING], guild_id=GUILD) if e.channel_id == CHANNELS[0]
    ]
    assert episode.message_count == 5
    await live.stop()


async def test_shutdown_writes_what_was_handed_over_and_a_restart_reopens_it(place: tuple[GraphStore, Consent]) -> None:
    store, consent = place
    clock = Clock(T0 + timedelta(seconds=30))
    live, _ = live_windows(store, consent, clock, tick=NEVER)
    await live.start()
    for n in range(40):
        await live.on_message(msg(n, CHANNELS[n % 4], PEOPLE[n % 8], n * 0.5), PEOPLE[n % 8])
    await live.stop()
    assert await stored(store) == 40
    again, _ = live_windows(store, consent, clock, tick=NEVER)
    assert await again.start() == 40  # every message comes back into its open window
    await again.stop()


async def test_forget_me_drops_what_is_not_written_yet(place: tuple[GraphStore, Consent]) -> None:
    store, consent = place
    live, recorder = live_windows(store, consent, Clock(T0), tick=NEVER)
    await live.start()
    for n in range(10):
        await live.on_message(msg(n, CHANNELS[0], PEOPLE[n % 2], n), PEOPLE[n % 2])
    await consent.opt_out(PEOPLE[1].id)
    assert live.drop_user(PEOPLE[1].id) == 5
    await live.stop()
    assert await stored(store) == 5
    found = await messages_before(store, CHANNELS[0], T0 + timedelta(minutes=1), 20)
    assert {u.id for _, u in found} == {PEOPLE[0].id}


async def test_an_id_another_channel_holds_is_refused_and_left_out_of_the_window(place: tuple[GraphStore, Consent]) -> None:
    store, consent = place
    await upsert_users(store, [PEOPLE[0]], GUILD)
    taken = msg(1, CHANNELS[5], PEOPLE[0], 0)
    await record_messages(store, [taken])
    clock = Clock(T0)
    live, _ = live_windows(store, consent, clock, tick=NEVER)
    await live.start()
    await live.on_message(msg(0, CHANNELS[0], PEOPLE[0], 0), PEOPLE[0])
    await live.on_message(taken.model_copy(update={"channel_id": CHANNELS[0]}), PEOPLE[0])  # same id, other channel
    await live.on_message(msg(2, CHANNELS[0], PEOPLE[0], 2), PEOPLE[0])
    clock.advance(WindowSettings().quiet_seconds + 10)
    await live.tick()
    await live.drain()
    [episode] = [
        e for e in await episodes_by_status(store, [EpisodeStatus.PENDING], guild_id=GUILD) if e.channel_id == CHANNELS[0]
    ]
    assert episode.message_count == 2
    assert [m.id for m, _ in await episode_messages(store, episode.key)] == [
        msg(0, "", PEOPLE[0], 0).id,
        msg(2, "", PEOPLE[0], 0).id,
    ]
    await live.stop()
