"""Wiring the bot: `run_bot` opens the long-lived resources (the graph, the LLM client, consent, the
window buffer) with `async with` and hands them to `bot.app.GrapevineBot`."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import asdict
from datetime import UTC, datetime

import discord

from bot.app import GrapevineBot, stop_on_sigterm
from bot.services import Services
from bot.shards import Shard
from common.events import emit
from common.settings import Settings
from grapevine.runtime import open_store
from graph.privacy.guards.consent import Consent
from graph.store import GraphStore
from ingest.embeddings import load_embedder
from ingest.ingestor import Ingestor
from ingest.live import LiveWindows
from ingest.recording import MessageRecorder
from llm.client import build_llm
from llm.meter import UsageMeter
from recall.rehearsal import rehearse_at_start


async def _rehearse(store: GraphStore, settings: Settings) -> None:
    """The reply reads rehearsed in the background as the bot connects (recall/rehearsal.py); a failure only logs."""
    try:
        done = await rehearse_at_start(store, settings.context, datetime.now(UTC), tuning=settings.recall)
    except Exception as exc:  # noqa: BLE001 - a rehearsal is an optimisation: it must never stop the bot
        emit("bot", "rehearsal_failed", level=logging.WARNING, error=type(exc).__name__)
        return
    emit("bot", "rehearsal_done", **asdict(done))


def check_bot_config(settings: Settings) -> list[str]:
    """What is missing to run the bot, as messages naming the variables."""
    missing = []
    if settings.discord.token is None or not settings.discord.token.get_secret_value():
        missing.append("DISCORD_TOKEN is not set (the bot token from the Discord Developer Portal: docs/discord-setup.md)")
    if not settings.llm.configured:
        missing.append("LLM_BASE_URL is not set (an OpenAI-compatible endpoint for replies and extraction)")
    return missing


async def run_bot(settings: Settings) -> None:
    missing = check_bot_config(settings)
    if missing:
        raise ValueError("; ".join(missing))
    assert settings.discord.token is not None  # check_bot_config said so
    token = settings.discord.token.get_secret_value()
    discord.http.Route.BASE = settings.discord.api_url  # every REST call of the client goes there
    meter = UsageMeter()
    llm = build_llm(settings.llm, meter)
    embed = await asyncio.to_thread(load_embedder, settings.embeddings)
    try:
        async with open_store(settings, shared=True) as runtime:
            store = runtime.store
            consent = Consent(store)
            await consent.load()
            ingestor = Ingestor(
                store,
                llm,
                settings.extraction,
                settings.window,
                embed=embed,
                hidden=lambda uid: not consent.allowed(uid),
                lock_dir=settings.graph.data_dir,  # an import beside the bot takes turns with it
            )
            ingestor.holds = Shard.of(settings.discord).holds  # a shard extracts its own guilds' windows only
            tick = settings.window.record_tick_ms / 1000
            recorder = MessageRecorder(store, tick_seconds=tick) if tick > 0 else None
            live = LiveWindows(store, ingestor, consent, settings.window, recorder=recorder)
            services = Services(
                settings=settings, store=store, llm=llm, meter=meter, consent=consent, ingestor=ingestor, live=live, embed=embed
            )
            await live.start()
            rehearsal = asyncio.create_task(_rehearse(store, settings))
            try:
                async with GrapevineBot(services) as bot:
                    stop_on_sigterm(bot)
                    await bot.start(token)
            except discord.LoginFailure:
                raise ValueError("Discord rejected DISCORD_TOKEN: copy the bot token again from the developer portal") from None
            except discord.PrivilegedIntentsRequired:
                raise RuntimeError(
                    "Discord refused the Message Content intent: enable it for the bot in the developer "
                    "portal (Bot > Privileged Gateway Intents)"
                ) from None
            finally:
                rehearsal.cancel()
                await live.stop()
    finally:
        if llm is not None:
            await llm.aclose()
