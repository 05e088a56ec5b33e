"""The recorder writes a batch in one transaction and upserts only the authors it has not written yet or whose
names changed (ingest/recording.py); a rename, an opt-out and a member forgotten by another process are still
seen. A closing window does not write again what the recorder wrote, but does write what it dropped."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

import graph.writes.messages
import ingest.live
import ingest.recording
from common.settings import ExtractionSettings, WindowSettings
from graph.models import Channel, EpisodeStatus, Guild, Message, User
from graph.privacy.forget import forget_user
from graph.privacy.guards.consent import Consent, consent_key, opt_out
from graph.reads.backlog import episodes_by_status
from graph.store import GraphStore
from graph.writes.discord_records import upsert_channel, upsert_guild
from ingest.ingestor import Ingestor
from ingest.live import LiveWindows
from ingest.recording import MessageRecorder
from tests.ingest.test_recording import CHANNELS, GUILD, NEVER, PEOPLE, T0, msg, stored
from tests.support.scripted import Clock

ANN, BEN = PEOPLE[0], PEOPLE[1]


@pytest.fixture
async def place(store: GraphStore) -> tuple[GraphStore, Consent]:
    await upsert_guild(store, Guild(id=GUILD, name="busy"))
    for cid in CHANNELS[:3]:
        await upsert_channel(store, Channel(id=cid, guild_id=GUILD, name=cid))
    consent = Consent(store)
    await consent.load()
    return store, consent


class Spy:
    """What each batch asked the store to upsert, and how often a window recorded its messages itself."""

    def __init__(self, store: GraphStore, monkeypatch: pytest.MonkeyPatch) -> None:
        self.upserts: list[dict[str, list[str]]] = []
        self.window_records = 0
        batch, plain = graph.writes.messages.record_batch, graph.writes.messages.record_messages

        async def record_batch(
            store: GraphStore, messages: list[Message], authors: Mapping[str, User], upsert: Mapping[str, Sequence[User]]
        ) -> Any:
            self.upserts.append({g: sorted(u.id for u in users) for g, users in upsert.items()})
            return await batch(store, messages, authors, upsert)

        async def record_messages(store: GraphStore, messages: list[Message]) -> list[str]:
            self.window_records += 1
            return await plain(store, messages)

        monkeypatch.setattr(ingest.recording, "record_batch", record_batch)
        monkeypatch.setattr(ingest.live, "record_messages", record_messages)


async def member_name(store: GraphStore, user_id: str) -> str | None:
    records, _, _ = await store.driver.execute_query(
        "MATCH (u:User {id: $u})-[m:MEMBER_OF]->(:Guild {id: $g}) RETURN m.display_name AS name",
        {"u": user_id, "g": GUILD},
        database_=store.engine.database,
    )
    return records[0]["name"] if records else None


async def test_an_author_is_upserted_once_until_renamed(
    place: tuple[GraphStore, Consent], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, _ = place
    spy = Spy(store, monkeypatch)
    recorder = MessageRecorder(store, tick_seconds=NEVER)
    recorder.add(msg(1, CHANNELS[0], ANN, 1), ANN)
    recorder.add(msg(2, CHANNELS[1], BEN, 2), BEN)
    await recorder.flush()
    recorder.add(msg(3, CHANNELS[0], ANN, 3), ANN)
    await recorder.flush()
    renamed = ANN.model_copy(update={"display_name": "Annie"})
    recorder.add(msg(4, CHANNELS[0], renamed, 4), renamed)
    await recorder.flush()
    assert spy.upserts == [{GUILD: sorted([ANN.id, BEN.id])}, {}, {GUILD: [ANN.id]}]
    assert await stored(store) == 4
    assert await member_name(store, ANN.id) == "Annie"


async def test_an_opt_out_by_another_process_holds_for_a_cached_author(place: tuple[GraphStore, Consent]) -> None:
    store, _ = place
    recorder = MessageRecorder(store, tick_seconds=NEVER)  # its consent check says yes to everyone
    recorder.add(msg(1, CHANNELS[0], ANN, 1), ANN)
    await recorder.flush()
    await opt_out(store, ANN.id)  # the CLI, say: this process's caches know nothing of it
    recorder.add(msg(2, CHANNELS[0], ANN, 2), ANN)
    recorder.add(msg(3, CHANNELS[0], BEN, 3), BEN)
    await recorder.flush()
    assert await stored(store) == 2
    assert recorder.unsettled([msg(2, "", ANN, 0).id, msg(3, "", BEN, 0).id]) == ({msg(2, "", ANN, 0).id}, set())


async def test_a_cached_author_forgotten_elsewhere_is_written_again_with_their_message(place: tuple[GraphStore, Consent]) -> None:
    store, _ = place
    recorder = MessageRecorder(store, tick_seconds=NEVER)
    recorder.add(msg(1, CHANNELS[0], ANN, 1), ANN)
    await recorder.flush()
    await forget_user(store, ANN.id)  # by another process: the node is gone, the recorder still thinks it stored
    recorder.add(msg(2, CHANNELS[0], ANN, 2), ANN)
    await recorder.flush()
    assert await stored(store) == 1  # the new message, with its author again
    assert await member_name(store, ANN.id) == ANN.display_name


async def test_a_window_does_not_record_again_what_the_recorder_wrote(
    place: tuple[GraphStore, Consent], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, consent = place
    spy = Spy(store, monkeypatch)
    written = graph.writes.messages.record_batch
    failing = False

    async def refusing(*args: Any) -> Any:
        if failing:
            raise RuntimeError("the graph refuses this batch")
        return await written(*args)

    monkeypatch.setattr(ingest.recording, "record_batch", refusing)
    clock = Clock(T0)
    recorder = MessageRecorder(store, tick_seconds=0.01)
    live = LiveWindows(store, Ingestor(store, None, ExtractionSettings(), WindowSettings()), consent, WindowSettings(),
                       clock=clock, recorder=recorder)  # fmt: skip
    await live.start()
    for n in range(4):
        await live.on_message(msg(n, CHANNELS[0], PEOPLE[n % 2], n), PEOPLE[n % 2])
    await recorder.flush()
    failing = True  # the next batch is tried, then given up (DROP_AFTER_FAILURES)
    for n in range(4, 7):
        await live.on_message(msg(n, CHANNELS[1], ANN, n), ANN)
    for _ in range(300):
        if not recorder.pending():
            break
        await asyncio.sleep(0.05)
    assert recorder.pending() == 0 and await stored(store) == 4
    failing = False
    clock.advance(WindowSettings().quiet_seconds + 10)
    await live.tick()
    await live.drain()
    assert spy.window_records == 1  # only the window whose batch was dropped wrote its messages itself
    episodes = await episodes_by_status(store, [EpisodeStatus.PENDING], guild_id=GUILD)
    assert sorted(e.message_count for e in episodes) == [3, 4]
    assert await stored(store) == 7
    await live.stop()


async def test_consent_keys_are_the_keyed_hash_whether_kept_or_not(store: GraphStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every recorded message asks for its author's consent key: kept in memory, the same keyed hash as computed afresh."""
    import hashlib
    import hmac

    import graph.privacy.guards.consent

    monkeypatch.setattr(graph.privacy.guards.consent, "CONSENT_KEYS_KEPT", 2)
    salt = store.salt or ""
    fresh = {p.id: hmac.new(salt.encode(), p.id.encode(), hashlib.sha256).hexdigest() for p in PEOPLE}
    for _ in range(2):  # the second round reads kept keys, and the memo starts again past two
        assert {p.id: consent_key(store, p.id) for p in PEOPLE} == fresh
    assert len(store.consent_keys) <= 2
