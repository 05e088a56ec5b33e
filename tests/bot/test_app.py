"""Start-up: the bot's options, its setup_hook (feature modules, slash commands, upkeep), its config check."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import discord
import pytest
from pydantic import SecretStr

from bot.app import GrapevineBot
from bot.services import Services
from common.settings import DiscordSettings, LLMSettings, Settings
from grapevine import bot_runner
from grapevine.bot_runner import check_bot_config, run_bot
from grapevine.runtime import Runtime
from graph.store import GraphStore
from tests.support.discord_api import FakeDiscordAPI
from tests.support.scripted_llm import ScriptedLLMServer


async def test_setup_hook_loads_features_and_starts_upkeep(services: Services) -> None:
    bot = GrapevineBot(services, sync_commands=False)
    await bot.setup_hook()
    try:
        assert set(bot.cogs) == {"Listening", "Memory", "Replying", "Upkeep"}
        top = {c.name for c in bot.tree.get_commands()}
        assert top == {"remember", "forget-me", "memory"}
        group = bot.tree.get_command("memory")
        assert isinstance(group, discord.app_commands.Group)
        assert {c.name for c in group.commands} == {
            "about",
            "forget",
            "opt-out",
            "opt-in",
            "status",
            "mode",
            "export",
            "forget-member",
            "who-knows",
            "timeline",
        }
        # an instance of the extension's own module (discord.py loads an extension afresh), not of bot.upkeep's Upkeep
        upkeep: Any = bot.get_cog("Upkeep")
        assert upkeep is not None and upkeep.loop.is_running()
        assert bot.claimed("remember that I like tea") and not bot.claimed("how are you?")
        intents = bot.intents
        assert intents.guilds and intents.guild_messages and intents.dm_messages and intents.message_content
        assert not intents.members and not intents.presences  # no privileged intent beyond message content
        assert bot.allowed_mentions is not None and dict(bot.allowed_mentions.to_dict()) == {"parse": []}
    finally:
        for name in list(bot.extensions):
            await bot.unload_extension(name)
        await bot.close()


def test_config_check_names_the_variables() -> None:
    missing = check_bot_config(Settings(discord=DiscordSettings(token=None), llm=LLMSettings(base_url=None)))
    assert [m.split(" ")[0] for m in missing] == ["DISCORD_TOKEN", "LLM_BASE_URL"]
    ready = Settings(discord=DiscordSettings(token=SecretStr("t")), llm=LLMSettings(base_url="http://127.0.0.1:1/v1"))
    assert check_bot_config(ready) == []


async def test_run_bot_refuses_to_start_without_a_token() -> None:
    with pytest.raises(ValueError, match="DISCORD_TOKEN"):
        await run_bot(Settings(discord=DiscordSettings(token=None), llm=LLMSettings(base_url="http://127.0.0.1:1/v1")))


async def test_run_bot_opens_everything_hands_it_over_and_closes_it(
    store: GraphStore, llm_server: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, object] = {}

    @contextlib.asynccontextmanager
    async def fake_open_store(settings: Settings, **_: object) -> AsyncIterator[Runtime]:
        yield Runtime(store, store.engine, started_server=False)

    async def fake_start(self: GrapevineBot, token: str, *, reconnect: bool = True) -> None:
        seen.update(token=token, services=self.services, windows_running=self.services.live._loop is not None)

    monkeypatch.setattr(bot_runner, "open_store", fake_open_store)
    monkeypatch.setattr(GrapevineBot, "start", fake_start)
    settings = Settings(discord=DiscordSettings(token=SecretStr("secret-token")), llm=LLMSettings(base_url=llm_server.base_url))
    await run_bot(settings)

    services = seen["services"]
    assert isinstance(services, Services) and seen["token"] == "secret-token" and seen["windows_running"]
    assert services.store is store and services.llm is not None and services.settings is settings
    assert services.live._loop is not None and services.live._loop.done()  # stopped on the way out


async def test_run_bot_logs_in_at_the_configured_rest_address_and_says_a_refused_token_in_one_line(
    store: GraphStore, llm_server: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    @contextlib.asynccontextmanager
    async def fake_open_store(settings: Settings, **_: object) -> AsyncIterator[Runtime]:
        yield Runtime(store, store.engine, started_server=False)

    monkeypatch.setattr(bot_runner, "open_store", fake_open_store)
    monkeypatch.setattr(discord.http.Route, "BASE", discord.http.Route.BASE)  # run_bot points it at DISCORD_API_URL
    with FakeDiscordAPI(token="the-real-token") as api:
        discord_settings = DiscordSettings(token=SecretStr("a-stale-token"), api_url=api.api_url)
        with pytest.raises(ValueError, match="Discord rejected DISCORD_TOKEN"):
            await run_bot(Settings(discord=discord_settings, llm=LLMSettings(base_url=llm_server.base_url)))
    assert [path for path, _ in api.requests] == ["/api/v10/users/@me"]  # discord.py's login, at the fake
