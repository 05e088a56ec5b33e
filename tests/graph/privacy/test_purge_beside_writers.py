"""A purge (ArcadeDB: every index rebuilt, then the database closed and opened again) runs beside the engine's other
writers, the bot's recorder storing live messages included: they wait or replay their transaction, and every
message handed over is stored."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime, timedelta

import pytest

from graph.models import Channel, Guild, Message, User
from graph.privacy.purge import purge_deleted
from graph.store import GraphStore
from graph.writes.discord_records import upsert_channel, upsert_guild
from ingest.recording import MessageRecorder

GUILD, CHANNEL = "100000000000000001", "110000000000000001"
AUTHOR = User(id="300000000000000001", name="alice", display_name="Alice")
T0 = datetime(2024, 5, 3, 18, 0, tzinfo=UTC)
PURGES = 5


async def _stored(store: GraphStore, ids: list[str]) -> set[str]:
    records, _, _ = await store.driver.execute_query(
        "MATCH (m:Message) WHERE m.id IN $ids RETURN m.id AS id", {"ids": ids}, database_=store.engine.database
    )
    return {r["id"] for r in records}


async def test_the_recorder_loses_nothing_while_a_purge_reopens_the_database(
    store: GraphStore, caplog: pytest.LogCaptureFixture
) -> None:
    if store.engine.name != "arcadedb":
        pytest.skip("Neo4j's purge does nothing under its writers")
    await upsert_guild(store, Guild(id=GUILD, name="g"))
    await upsert_channel(store, Channel(id=CHANNEL, guild_id=GUILD, name="general"))
    caplog.set_level(logging.INFO)
    recorder = MessageRecorder(store, tick_seconds=0.02)
    recorder.start()
    sent: list[str] = []
    purging = asyncio.Event()

    async def talk() -> None:
        i = 0
        while not purging.is_set() or i < 10:
            i += 1
            message = Message(
                id=str(500000000000000000 + i), guild_id=GUILD, channel_id=CHANNEL, author_id=AUTHOR.id,
                content=f"live message {i}", created_at=T0 + timedelta(seconds=i),
            )  # fmt: skip
            recorder.add(message, AUTHOR)
            sent.append(message.id)
            await asyncio.sleep(0.01)

    talking = asyncio.create_task(talk())
    await asyncio.sleep(0.3)
    for _ in range(PURGES):
        assert await purge_deleted(store) == {}
    purging.set()
    await talking
    await recorder.stop()
    failures = [r.getMessage() for r in caplog.records if "message_batch" in r.getMessage()]  # the recorder's retries
    assert len(sent) > 50
    assert await _stored(store, sent) == set(sent), failures[:3]
    assert recorder.recorded == len(sent)
