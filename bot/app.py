"""The bot, after discord.py's examples/advanced_startup.py: `grapevine.bot_runner.run_bot` opens the
long-lived resources and hands them to `GrapevineBot`, whose `setup_hook` loads the feature modules,
syncs the slash commands and starts upkeep."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable, Sequence

import discord
from discord.ext import commands

from bot.services import Services
from bot.shards import Shard
from common.events import emit

EXTENSIONS = ("bot.listening", "bot.memory", "bot.replying", "bot.upkeep")


def intents() -> discord.Intents:
    return discord.Intents(guilds=True, guild_messages=True, dm_messages=True, message_content=True)


def permissions() -> discord.Permissions:
    """What the bot needs in a server's channels, and no more: to see them (their messages reach it), to answer
    there and in their threads, and to answer as a reply, which Discord allows only with Read Message History.
    Slash commands need no permission of the bot's (the `applications.commands` scope), and exports go by DM."""
    return discord.Permissions(view_channel=True, send_messages=True, send_messages_in_threads=True, read_message_history=True)


def invite_url(application_id: int) -> str:
    """The link that adds the bot to a server with those permissions and its slash commands."""
    return discord.utils.oauth_url(application_id, permissions=permissions(), scopes=("bot", "applications.commands"))


class GrapevineBot(commands.Bot):
    def __init__(self, services: Services, *, extensions: Sequence[str] = EXTENSIONS, sync_commands: bool = True) -> None:
        shard = Shard.of(services.settings.discord) if services is not None else Shard()
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents(),
            help_command=None,
            allowed_mentions=discord.AllowedMentions.none(),
            shard_id=shard.id if shard.sharded else None,
            shard_count=shard.count if shard.sharded else None,
        )
        self.shard = shard
        self.services = services
        self.initial_extensions = list(extensions)
        self.sync_commands = sync_commands
        self.text_commands: list[Callable[[str], bool]] = []  # plain-language commands that are not chat
        self.traceless_commands: list[Callable[[str], bool]] = []  # commands that store nothing of a newcomer

    def claimed(self, text: str) -> bool:
        """Whether a feature handles this text to the bot as a command (then no chat reply)."""
        return any(claims(text) for claims in self.text_commands)

    def traceless(self, text: str) -> bool:
        """Whether this text is a command that must leave no trace of a member never stored (all but "remember",
        which asks to be remembered)."""
        return any(claims(text) for claims in self.traceless_commands)

    async def setup_hook(self) -> None:
        for extension in self.initial_extensions:
            await self.load_extension(extension)
        if self.sync_commands and self.shard.runs_graph_upkeep:  # the commands are the application's: synced once
            synced = await self.tree.sync()
            emit("bot", "commands_synced", commands=len(synced))
        upkeep = self.get_cog("Upkeep")
        if upkeep is not None and hasattr(upkeep, "start"):
            upkeep.start()

    async def on_message(self, message: discord.Message, /) -> None:
        """No prefix commands: the feature modules listen to messages themselves."""

    async def on_ready(self) -> None:
        emit(
            "bot",
            "ready",
            user_id=str(self.user.id) if self.user else None,
            guilds=len(self.guilds),
            shard=f"{self.shard.id}/{self.shard.count}",
        )


def stop_on_sigterm(bot: GrapevineBot) -> None:
    """SIGTERM (docker stop, systemd) closes the bot, so every `async with` above unwinds cleanly."""
    with contextlib.suppress(NotImplementedError, RuntimeError):
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, lambda: asyncio.ensure_future(bot.close()))
