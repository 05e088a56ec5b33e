"""The listening cog: adapts message events to the Recorder, edits and deletes to Changes (kept on disk while
the graph is down), and channel and role events to the channels' visibility."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord.ext import commands, tasks

from bot.addressing import addressed_text
from bot.listening._changes import Changes
from bot.listening._recorder import Recorder
from common.events import emit
from recall.assemble import forget_texts

if TYPE_CHECKING:
    from bot.app import GrapevineBot

PENDING_RETRY_SECONDS = 30.0  # how often deletes and edits kept during a graph outage are tried again


class Listening(commands.Cog):
    def __init__(self, bot: GrapevineBot) -> None:
        self.bot = bot
        self.recorder = Recorder(bot.services)
        self.changes = Changes(bot.services)
        self.retry = tasks.loop(seconds=PENDING_RETRY_SECONDS)(self.changes.apply_pending)

    async def cog_load(self) -> None:
        await self.changes.apply_pending()  # what waited on disk when the bot stopped
        self.retry.start()

    async def cog_unload(self) -> None:
        self.retry.cancel()

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        if self.bot.user is None:
            return
        text = addressed_text(message, self.bot.user)
        await self.recorder.on_message(message, self.bot.user.id, command=text is not None and self.bot.traceless(text))

    @commands.Cog.listener()
    async def on_raw_message_edit(self, payload: discord.RawMessageUpdateEvent) -> None:
        message = payload.message
        if message.edited_at is None:
            return  # an embed unfurl, not an edit
        if not self.bot.services.consent.allowed(str(message.author.id)):
            await self._delete([payload.message_id])  # an opted-out author's edit only removes: their new text is not kept
            return
        await self.changes.edit(str(payload.message_id), message.content, message.edited_at)
        forget_texts()  # the words the edit took out may be in the reply's caches

    @commands.Cog.listener()
    async def on_raw_message_delete(self, payload: discord.RawMessageDeleteEvent) -> None:
        await self._delete([payload.message_id])

    @commands.Cog.listener()
    async def on_raw_bulk_message_delete(self, payload: discord.RawBulkMessageDeleteEvent) -> None:
        await self._delete(sorted(payload.message_ids))

    # --- channel visibility (graph/privacy/channels.py) ------------------------------------------------
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
        await self.changes.delete([str(i) for i in message_ids])
        forget_texts()  # the reply's caches may hold the deleted words

    @commands.Cog.listener()
    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        await self.changes.channel_deleted(str(channel.guild.id), str(channel.id))

    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        # the raw event comes whether or not the thread is cached (on_thread_delete only when it is)
        await self.changes.channel_deleted(str(payload.guild_id), str(payload.thread_id))
