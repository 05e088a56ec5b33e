"""One gateway shard per process: which guilds a shard serves, the discord.py client it starts, the windows
it extracts (its own guilds' only), and the graph-wide upkeep that runs in shard 0 alone."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

import bot.upkeep
from bot.app import GrapevineBot
from bot.services import Services
from bot.shards import Shard
from bot.upkeep import run_upkeep
from common.settings import DiscordSettings, ExtractionSettings, WindowSettings
from graph.models import Channel, EpisodeStatus, Guild, Message, User, dm_scope
from graph.privacy.guards.consent import Consent
from graph.reads.backlog import episodes_by_status
from graph.store import GraphStore
from graph.writes.discord_records import upsert_channel, upsert_guild
from ingest.ingestor import BacklogResult, Ingestor
from ingest.live import LiveWindows
from llm.client import OpenAILLM
from llm.meter import UsageMeter
from tests.support.scripted import Clock, answer, llm_settings
from tests.support.scripted_llm import ScriptedLLMServer

# Discord: a guild's events go to shard (guild_id >> 22) % shard_count; these two differ in that bit only
EVEN_GUILD, ODD_GUILD = str(4_000_000 << 22), str(4_000_001 << 22)
T0 = datetime(2025, 3, 1, 18, 0, tzinfo=UTC)
ALICE = User(id="330000000000000001", name="alice", display_name="Alice")


def test_a_shard_holds_the_guilds_discord_sends_it_and_shard_0_the_dms() -> None:
    first, second = Shard(0, 2), Shard(1, 2)
    assert first.holds(EVEN_GUILD) and not first.holds(ODD_GUILD)
    assert second.holds(ODD_GUILD) and not second.holds(EVEN_GUILD)
    assert first.holds(dm_scope(ALICE.id)) and not second.holds(dm_scope(ALICE.id))
    assert all(Shard().holds(g) for g in (EVEN_GUILD, ODD_GUILD, dm_scope(ALICE.id), "imported-export"))
    assert first.runs_graph_upkeep and not second.runs_graph_upkeep and not Shard().sharded


def test_a_shard_id_outside_the_count_is_refused_by_name() -> None:
    with pytest.raises(ValidationError, match="DISCORD_SHARD_ID must be below DISCORD_SHARD_COUNT"):
        DiscordSettings(shard_id=2, shard_count=2)


async def test_the_bot_connects_as_its_shard(services: Services) -> None:
    services.settings.discord = DiscordSettings(shard_id=1, shard_count=3)
    sharded = GrapevineBot(services, sync_commands=False)
    services.settings.discord = DiscordSettings()
    single = GrapevineBot(services, sync_commands=False)
    try:
        assert (sharded.shard_id, sharded.shard_count) == (1, 3)
        assert (single.shard_id, single.shard_count) == (None, None)  # discord.py's default: no sharding
    finally:
        await sharded.close()
        await single.close()


async def _pending_window(store: GraphStore, consent: Consent, guild_id: str, n: int) -> None:
    clock = Clock(T0)
    live = LiveWindows(
        store, Ingestor(store, None, ExtractionSettings(), WindowSettings()), consent, WindowSettings(), clock=clock
    )
    await live.start()
    channel = f"81000000000000000{n}"
    await upsert_guild(store, Guild(id=guild_id, name=f"guild {n}"))
    await upsert_channel(store, Channel(id=channel, guild_id=guild_id, name="general"))
    text = f"the garden club meets on thursday number {n}"
    message = Message(
        id=f"82000000000000000{n}", guild_id=guild_id, channel_id=channel, author_id=ALICE.id, content=text, created_at=T0
    )
    assert await live.on_message(message, ALICE)
    clock.advance(WindowSettings().quiet_seconds + 1)
    await live.tick()
    await live.drain()
    await live.stop()


async def test_a_shard_extracts_only_its_own_guilds_windows(store: GraphStore) -> None:
    consent = Consent(store)
    await consent.load()
    for n, guild in enumerate((EVEN_GUILD, ODD_GUILD)):
        await _pending_window(store, consent, guild, n)
    assert {e.guild_id for e in await episodes_by_status(store, [EpisodeStatus.PENDING])} == {EVEN_GUILD, ODD_GUILD}
    with ScriptedLLMServer() as srv:
        srv.responder = lambda _request: answer("Alice talked about the garden club.")
        llm = OpenAILLM(llm_settings(srv.base_url), UsageMeter(), min_wait=0.001, max_wait=0.01)
        try:
            ingestor = Ingestor(store, llm, ExtractionSettings(batch_messages=1), WindowSettings())
            ingestor.holds = Shard(1, 2).holds
            assert await ingestor.process_backlog() == BacklogResult(done=1)
            assert srv.calls == 1
        finally:
            await llm.aclose()
    [left] = await episodes_by_status(store, [EpisodeStatus.PENDING])
    assert left.guild_id == EVEN_GUILD  # shard 0's process extracts it


async def test_graph_wide_upkeep_runs_in_shard_0_only(services: Services, monkeypatch: pytest.MonkeyPatch) -> None:
    called: list[str] = []
    for name in ("retire_expired", "enforce_user_cap", "apply_retention", "purge_if_due"):
        real = getattr(bot.upkeep, name)

        def spy(*args: object, _real: object = real, _name: str = name, **kwargs: object) -> object:
            called.append(_name)
            return _real(*args, **kwargs)  # type: ignore[operator]

        monkeypatch.setattr(bot.upkeep, name, spy)
    services.settings.discord = DiscordSettings(shard_id=1, shard_count=2)
    report = await run_upkeep(services)
    assert called == [] and report.errors == 0
    services.settings.discord = DiscordSettings(shard_id=0, shard_count=2)
    await run_upkeep(services)
    assert called == ["retire_expired", "enforce_user_cap", "apply_retention", "purge_if_due"]
