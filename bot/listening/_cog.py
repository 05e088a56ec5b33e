"""The listening cog: adapts message, edit and delete events to the Recorder."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord.ext import commands

from bot.listening._recorder import Recorder
from common.events import emit

if TYPE_CHECKING:
    from bot.app import GrapevineBot


class Listening(commands.Cog):
    def __init__(self, bot: GrapevineBot) -> None:
        self.bot = bot
        self.recorder = Recorder(bot.services)

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        if self.bot.user is None:
            return
        await self.recorder.on_message(message, self.bot.user.id)

    @commands.Cog.listener()
    async def on_raw_message_edit(self, payload: discord.RawMessageUpdateEvent) -> None:
        try:
            await self.recorder.on_edit(payload)
        except Exception as exc:  # noqa: BLE001 - an edit lost to a graph outage is not worth a crash
            emit("bot", "edit_failed", level=logging.WARNING, message_id=str(payload.message_id), error=type(exc).__name__)

    @commands.Cog.listener()
    async def on_raw_message_delete(self, payload: discord.RawMessageDeleteEvent) -> None:
        await self._delete([payload.message_id])

    @commands.Cog.listener()
    async def on_raw_bulk_message_delete(self, payload: discord.RawBulkMessageDeleteEvent) -> None:
        await self._delete(sorted(payload.message_ids))

    # --- channel visibility (graph/channels.py) ------------------------------------------------
    @commands.Cog.listener()
    async def on_ready(self) -> None:
        for guild in self.bot.guilds:
            await self.recorder.channels.refresh_guild(guild)

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        await self.recorder.channels.refresh_guild(guild)

    @commands.Cog.listener()
    async def on_guild_channel_create(self, channel: discord.abc.GuildChannel) -> None:
        await self._refresh(channel)

    @commands.Cog.listener()
    async def on_guild_channel_update(self, before: discord.abc.GuildChannel, after: discord.abc.GuildChannel) -> None:
        if isinstance(after, discord.CategoryChannel):  # its overwrites may be synced into its channels
            await self.recorder.channels.refresh_guild(after.guild)
        else:
            await self._refresh(after)

    @commands.Cog.listener()
    async def on_thread_create(self, thread: discord.Thread) -> None:
        await self._refresh(thread)

    @commands.Cog.listener()
    async def on_thread_update(self, before: discord.Thread, after: discord.Thread) -> None:
        await self._refresh(after)

    @commands.Cog.listener()
    async def on_guild_role_update(self, before: discord.Role, after: discord.Role) -> None:
        if after.is_default():  # @everyone's permissions decide every channel's visibility
            await self.recorder.channels.refresh_guild(after.guild)

    async def _refresh(self, channel: discord.abc.GuildChannel | discord.Thread) -> None:
        try:
            await self.recorder.channels.refresh(channel)
        except Exception as exc:  # noqa: BLE001 - refreshed again at the next start or change
            emit("bot", "channel_refresh_failed", channel_id=str(channel.id), error=type(exc).__name__)

    async def _delete(self, message_ids: list[int]) -> None:
        try:
            await self.recorder.on_delete(message_ids)
        except Exception as exc:  # noqa: BLE001 - any failure is logged; the event must not kill the listener
            emit("bot", "delete_failed", level=logging.WARNING, messages=len(message_ids), error=type(exc).__name__)
