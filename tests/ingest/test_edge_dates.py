"""Dates at the edges of what a datetime holds (9999-12-31, 0001-01-01) in an export: the message is refused as
it is read, named by its id and why, and the rest of the file is imported; a window stored with such a date
before (by an earlier version) never stops the backlog of its guild or any other: it fails with its reason and
the others are extracted. On the real engine, through the importer and the ingestor."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from common.settings import ExtractionSettings, WindowSettings
from graph.models import Channel, Guild, Message, User
from graph.privacy.guards.consent import Consent
from graph.store import GraphStore
from graph.writes.discord_records import upsert_channel, upsert_guild, upsert_users
from graph.writes.messages import record_messages
from ingest.history_import import ImportResult, import_export
from ingest.ingestor import Ingestor
from ingest.rewindowing import window_buffered

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)
GUILD, CHANNEL, ZORRO = "800000000000000077", "810000000000000077", "330000000000000077"


def _message(n: int, timestamp: str, text: str) -> dict[str, Any]:
    return {"id": f"9770000000000{n:05d}", "type": "Default", "timestamp": timestamp, "timestampEdited": None,
            "content": text, "author": {"id": ZORRO, "name": "zorro", "isBot": False}}  # fmt: skip


async def _import(store: GraphStore, path: Path) -> ImportResult:
    consent = Consent(store)
    await consent.load()
    ingestor = Ingestor(store, None, ExtractionSettings(), WindowSettings(), hidden=lambda uid: not consent.allowed(uid))
    return await import_export(path, store, ingestor, consent, WindowSettings())


async def test_a_message_dated_at_the_edges_is_refused_by_id_and_the_rest_imported(store: GraphStore, tmp_path: Path) -> None:
    messages = [
        _message(1, T0.isoformat(), "the kernel builds again"),
        _message(2, "9999-12-31T23:59:59.999+00:00", "from the end of time"),
        _message(3, "0001-01-01T00:00:00+00:00", "from the start of time"),
        _message(4, "0001-01-01T00:00:00+01:00", "before the start of time"),
        _message(5, (T0 + timedelta(minutes=1)).isoformat(), "and it is fast"),
    ]
    doc = {"guild": {"id": GUILD, "name": "g"}, "channel": {"id": CHANNEL, "name": "general"}, "messages": messages}
    path = tmp_path / "edges.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    result = await _import(store, path)
    assert [(s.message_id, "timestamp" in s.reason) for s in result.skipped] == [
        (messages[1]["id"], True),
        (messages[2]["id"], True),
        (messages[3]["id"], True),
    ], result.skipped
    assert result.messages == 2 and result.windows == 1


async def test_a_stored_message_no_window_can_hold_never_stops_the_backlog(store: GraphStore) -> None:
    """Stored in no window by an earlier version: `ingest --pending` windowed every guild's buffered messages in one
    replay, which overflowed on every run, for every guild."""
    other_guild, other_channel, bea = "800000000000000078", "810000000000000078", "330000000000000078"
    for guild, channel, who in ((GUILD, CHANNEL, ZORRO), (other_guild, other_channel, bea)):
        await upsert_guild(store, Guild(id=guild, name="g"))
        await upsert_channel(store, Channel(id=channel, guild_id=guild, name="general"))
        await upsert_users(store, [User(id=who, name=f"u{who[-2:]}", display_name=f"u{who[-2:]}")], guild)
    edge = datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)
    bad = Message(id="977000000000000091", guild_id=GUILD, channel_id=CHANNEL, author_id=ZORRO, content="end", created_at=edge)
    fine = [
        Message(id=f"97700000000000009{n}", guild_id=other_guild, channel_id=other_channel, author_id=bea,
                content=f"hello {n}", created_at=T0 + timedelta(minutes=n))
        for n in (2, 3)
    ]  # fmt: skip
    await record_messages(store, [bad, *fine])
    consent = Consent(store)
    await consent.load()
    ingestor = Ingestor(store, None, ExtractionSettings(), WindowSettings(), hidden=lambda uid: not consent.allowed(uid))
    done = await window_buffered(store, ingestor, consent, WindowSettings(), now=T0 + timedelta(days=1))
    assert (done.windows, done.messages) == (1, 2)  # the other guild's conversation is windowed
    assert done.refused == {bad.id: "9999-12-31 is not a time Discord gives a message (1970 to 2154)"}
    again = await window_buffered(store, ingestor, consent, WindowSettings(), now=T0 + timedelta(days=1))
    assert (again.windows, again.refused) == (0, done.refused)  # the next run says the same, and stops at nothing
