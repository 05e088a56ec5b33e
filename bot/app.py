"""Starting the bot, after discord.py's examples/advanced_startup.py: `run_bot` opens the long-lived
resources (the graph, the LLM client, consent, the window buffer) with `async with`, hands them to
`GrapevineBot`, whose `setup_hook` loads the feature modules, syncs the slash commands and starts upkeep."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable, Sequence

import discord
from discord.ext import commands

from bot.services import Services
from grapevine.embeddings import load_embedder
from grapevine.events import emit
from grapevine.runtime import open_store
from grapevine.settings import Settings
from ingest.consent import Consent
from ingest.live import LiveWindows
from ingest.llm import UsageMeter, build_llm
from ingest.pipeline import Ingestor

EXTENSIONS = ("bot.listening", "bot.memory", "bot.replying", "bot.upkeep")


def intents() -> discord.Intents:
    return discord.Intents(guilds=True, guild_messages=True, dm_messages=True, message_content=True)


class GrapevineBot(commands.Bot):
    def __init__(self, services: Services, *, extensions: Sequence[str] = EXTENSIONS, sync_commands: bool = True) -> None:
        super().__init__(command_prefix=commands.when_mentioned, intents=intents(), help_command=None,
                         allowed_mentions=discord.AllowedMentions.none())
        self.services = services
        self.initial_extensions = list(extensions)
        self.sync_commands = sync_commands
        self.text_commands: list[Callable[[str], bool]] = []  # plain-language commands that are not chat

    def claimed(self, text: str) -> bool:
        """Whether a feature handles this text to the bot as a command (then no chat reply)."""
        return any(claims(text) for claims in self.text_commands)

    async def setup_hook(self) -> None:
        for extension in self.initial_extensions:
            await self.load_extension(extension)
        if self.sync_commands:
            synced = await self.tree.sync()
            emit("bot", "commands_synced", commands=len(synced))
        upkeep = self.get_cog("Upkeep")
        if upkeep is not None:
            upkeep.start()  # type: ignore[attr-defined]

    async def on_message(self, message: discord.Message, /) -> None:
        """No prefix commands: the feature modules listen to messages themselves."""

    async def on_ready(self) -> None:
        emit("bot", "ready", user_id=str(self.user.id) if self.user else None, guilds=len(self.guilds))


def check_bot_config(settings: Settings) -> list[str]:
    """What is missing to run the bot, as messages naming the variables."""
    missing = []
    if settings.discord.token is None or not settings.discord.token.get_secret_value():
        missing.append("DISCORD_TOKEN is not set (the bot token from the Discord developer portal)")
    if not settings.llm.configured:
        missing.append("LLM_BASE_URL is not set (an OpenAI-compatible endpoint for replies and extraction)")
    return missing


async def run_bot(settings: Settings) -> None:
    missing = check_bot_config(settings)
    if missing:
        raise ValueError("; ".join(missing))
    token = settings.discord.token.get_secret_value()  # type: ignore[union-attr]
    meter = UsageMeter()
    llm = build_llm(settings.llm, meter)
    embed = await asyncio.to_thread(load_embedder, settings.embeddings)
    try:
        async with open_store(settings) as runtime:
            store = runtime.store
            consent = Consent(store)
            await consent.load()
            ingestor = Ingestor(store, llm, settings.extraction, settings.window, embed=embed,
                                hidden=lambda uid: not consent.allowed(uid))
            live = LiveWindows(store, ingestor, consent, settings.window)
            services = Services(settings=settings, store=store, llm=llm, meter=meter, consent=consent, ingestor=ingestor,
                                live=live, embed=embed)
            await live.start()
            try:
                async with GrapevineBot(services) as bot:
                    _stop_on_sigterm(bot)
                    await bot.start(token)
            except discord.LoginFailure:
                raise ValueError("Discord rejected DISCORD_TOKEN: copy the bot token again from the developer portal") from None
            except discord.PrivilegedIntentsRequired:
                raise RuntimeError("Discord refused the Message Content intent: enable it for the bot in the developer "
                                   "portal (Bot > Privileged Gateway Intents)") from None
            finally:
                await live.stop()
    finally:
        if llm is not None:
            await llm.aclose()


def _stop_on_sigterm(bot: GrapevineBot) -> None:
    """SIGTERM (docker stop, systemd) closes the bot, so every `async with` above unwinds cleanly."""
    with contextlib.suppress(NotImplementedError, RuntimeError):
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, lambda: asyncio.ensure_future(bot.close()))
