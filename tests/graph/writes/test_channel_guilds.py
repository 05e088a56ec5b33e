"""A channel id belongs to one guild or DM space: one stored for another is refused, never merged (it moved the
channel, and a forget of the DM space's owner then deleted the other guild's channel). Through the importer
(one line naming the file, nothing written) and the live recorder's write; on the real engine."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from common.settings import ExtractionSettings, WindowSettings
from graph.models import Channel, Guild
from graph.privacy.forget import forget_user
from graph.privacy.guards.consent import Consent, opt_out
from graph.store import GraphStore
from graph.writes.discord_records import ChannelElsewhere, upsert_channel, upsert_guild
from ingest.export_format import ExportFormatError
from ingest.history_import import ImportResult, import_export
from ingest.ingestor import Ingestor
from tests.support.bot_events import close, discord_bot

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)
GUILD, CHANNEL, OWNER, BOT, OTHER = (
    "800000000000000091", "810000000000000091", "330000000000000091", "330000000000000099", "330000000000000092",
)  # fmt: skip


def _doc(guild: dict[str, Any], channel: dict[str, Any], authors: list[tuple[str, bool]], first: int) -> dict[str, Any]:
    messages = [
        {"id": f"99100000000000{first + n:04d}", "type": "Default", "timestamp": (T0 + timedelta(minutes=n)).isoformat(),
         "timestampEdited": None, "content": f"message {n}", "author": {"id": who, "name": f"u{who[-2:]}", "isBot": bot}}
        for n, (who, bot) in enumerate(authors)
    ]  # fmt: skip
    return {"guild": guild, "channel": channel, "messages": messages}


async def _import(store: GraphStore, path: Path) -> ImportResult:
    consent = Consent(store)
    await consent.load()
    return await import_export(
        path, store, Ingestor(store, None, ExtractionSettings(), WindowSettings()), consent, WindowSettings()
    )


async def _channel(store: GraphStore, channel_id: str = CHANNEL) -> list[dict[str, Any]]:
    found = await store.driver.execute_query(
        "MATCH (c:Channel {id: $id}) OPTIONAL MATCH (c)-[:IN_GUILD]->(g:Guild) "
        "RETURN c.guild_id AS guild_id, collect(g.id) AS guilds, COUNT { (m:Message {channel_id: $id}) } AS messages, "
        "c.visibility AS visibility, c.mode AS mode",
        id=channel_id, database_=store.engine.database,
    )  # fmt: skip
    return [dict(r) for r in found.records]


async def test_a_channel_of_another_guild_is_refused_never_merged(store: GraphStore) -> None:
    await upsert_guild(store, Guild(id=GUILD, name="g"))
    await upsert_channel(store, Channel(id=CHANNEL, guild_id=GUILD, name="general"))
    with pytest.raises(ChannelElsewhere, match=f"channel {CHANNEL} is stored for guild {GUILD}"):
        await upsert_channel(store, Channel(id=CHANNEL, guild_id="800000000000000093", name="general"))
    assert await _channel(store) == [{"guild_id": GUILD, "guilds": [GUILD], "messages": 0, "visibility": None, "mode": None}]


async def test_a_dm_export_with_a_guilds_channel_id_is_refused_and_its_forget_leaves_the_guild(
    store: GraphStore, tmp_path: Path
) -> None:
    guild_file = tmp_path / "general.json"
    guild_file.write_text(json.dumps(_doc({"id": GUILD, "name": "g"}, {"id": CHANNEL, "name": "general"},
                                          [(OWNER, False), (OTHER, False)] * 3, 0)), encoding="utf-8")  # fmt: skip
    await _import(store, guild_file)
    dm_file = tmp_path / "dm.json"
    dm = {"id": "0", "name": "Direct Messages"}, {"id": CHANNEL, "type": "DirectTextChat", "name": "owner"}
    dm_file.write_text(json.dumps(_doc(*dm, [(OWNER, False), (BOT, True)], 100)), encoding="utf-8")
    with pytest.raises(ExportFormatError, match=f"dm.json: channel {CHANNEL} is stored for guild {GUILD}"):
        await _import(store, dm_file)
    assert await _channel(store) == [{"guild_id": GUILD, "guilds": [GUILD], "messages": 6, "visibility": None, "mode": None}]
    dms = await store.driver.execute_query(
        "MATCH (n) WHERE n.guild_id = $dm OR n.id = $dm RETURN count(n) AS n", dm=f"dm:{OWNER}", database_=store.engine.database
    )
    assert dms.records[0]["n"] == 0  # nothing of the DM file was written
    await opt_out(store, OWNER)
    assert (await forget_user(store, OWNER)).clean
    left = [{"guild_id": GUILD, "guilds": [GUILD], "messages": 3, "visibility": None, "mode": None}]
    assert await _channel(store) == left  # the other member's stay


async def test_an_import_of_the_channels_and_dm_the_live_bot_knows_is_merged_into_them(store: GraphStore, tmp_path: Path) -> None:
    """The same channel id in the same guild (or DM space) is the same channel: an import of the history of #staff
    (which Discord hides from @everyone) and of a member's DM, both of which the live bot recorded, adds the
    earlier messages to the one channel the bot knows, keeps what the bot read of it (private), and stores no
    second channel or guild link."""
    bot = await discord_bot(store, tmp_path / "bot")
    try:
        staff = bot.text_channel(CHANNEL, GUILD, visible=False)
        other = bot.member(OTHER, "u92", GUILD)
        await bot.channel_created(staff)
        await bot.say("991000000000000005", other, staff, "message 5", T0 + timedelta(minutes=5), None, None)
        dm = bot.dm(OWNER, "owner")
        await bot.say("991000000000000104", bot.member(OWNER, "owner"), dm, "message 4", T0 + timedelta(minutes=4), None, None)
    finally:
        await close(bot)
    live = [{"guild_id": GUILD, "guilds": [GUILD], "messages": 1, "visibility": "restricted", "mode": "private"}]
    assert await _channel(store) == live
    dm_id, space = str(dm.id), f"dm:{OWNER}"
    assert [c["guilds"] for c in await _channel(store, dm_id)] == [[space]]

    guild_file = tmp_path / "staff.json"
    guild_file.write_text(json.dumps(_doc({"id": GUILD, "name": "g"}, {"id": CHANNEL, "name": "staff"},
                                          [(OWNER, False), (OTHER, False)] * 3, 0)), encoding="utf-8")  # fmt: skip
    dm_file = tmp_path / "dm.json"
    dm_header = {"id": "0", "name": "Direct Messages"}, {"id": dm_id, "type": "DirectTextChat", "name": "owner"}
    dm_file.write_text(json.dumps(_doc(*dm_header, [(OWNER, False), (BOT, True)] * 3, 100)), encoding="utf-8")
    for path in (guild_file, dm_file):
        result = await _import(store, path)
        assert (result.messages, result.new_messages, result.skipped) == (6, 5, []), result
    assert await _channel(store) == [{**live[0], "messages": 6}]  # the bot's own copy of a message is the file's
    [merged] = await _channel(store, dm_id)
    assert (merged["guild_id"], merged["guilds"], merged["messages"]) == (space, [space], 6)
    nodes = await store.driver.execute_query(
        "MATCH (c:Channel) RETURN count(c) AS channels, count(DISTINCT c.id) AS ids", database_=store.engine.database
    )
    assert dict(nodes.records[0]) == {"channels": 2, "ids": 2}
