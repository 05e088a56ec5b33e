"""The bot's own cogs (listening and memory) on a real store, fed Discord's events as discord.py dispatches them:
messages (guild channels, threads, DMs, the bot's own DM answers), edits, deletes one by one and in bulk, channels and
threads created and deleted,
@everyone's permission overwrites, a restart's refresh, and the members' commands (opt-out, opt-in, forget me,
a moderator's memory mode and forget). The machines (tests/graph/privacy/test_scope_model.py,
tests/graph/privacy/test_erasure_model.py) drive the bot through it; Discord and the LLM are the only doubles."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import discord

from bot.listening import Listening
from bot.memory import Memory
from bot.services import Services
from common.settings import GraphSettings, Settings, WindowSettings
from graph.privacy.guards.consent import Consent
from graph.store import GraphStore
from ingest.ingestor import Ingestor
from ingest.live import LiveWindows
from llm.meter import UsageMeter
from tests.support.discord_doubles import (
    MockBot,
    MockClientUser,
    MockDMChannel,
    MockGuild,
    MockInteraction,
    MockMember,
    MockMessage,
    MockTextChannel,
    MockThread,
    invoke,
    raw_edit,
)

BOT_ID = 870000000000000001
MODERATOR = discord.Permissions(manage_guild=True)


@dataclass
class DiscordBot:
    """The cogs and the Discord objects they see: guilds, channels (visibility set per channel) and members."""

    services: Services
    bot: MockBot
    listening: Listening
    memory: Memory
    guilds: dict[str, MockGuild] = field(default_factory=dict)
    channels: dict[str, MockTextChannel | MockThread] = field(default_factory=dict)
    members: dict[str, MockMember] = field(default_factory=dict)
    dms: dict[str, MockDMChannel] = field(default_factory=dict)

    # --- Discord's objects ----------------------------------------------------------------------
    def guild(self, guild_id: str) -> MockGuild:
        if guild_id not in self.guilds:
            guild = MockGuild(id=int(guild_id), name=f"guild {guild_id[-2:]}", channels=[], threads=[])
            guild.me = MockMember(id=BOT_ID, name="grapevine", bot=True, guild=guild)
            guild.get_member.side_effect = lambda i, g=guild_id: self.members.get(f"{i}:{g}")
            self.guilds[guild_id] = guild
            self.bot.guilds = list(self.guilds.values())
        return self.guilds[guild_id]

    def member(self, user_id: str, name: str, guild_id: str | None = None) -> MockMember:
        key = f"{user_id}:{guild_id}"
        if key not in self.members:
            guild = self.guild(guild_id) if guild_id else None
            self.members[key] = MockMember(
                id=int(user_id), name=name, display_name=name, guild=guild, guild_permissions=MODERATOR
            )
        return self.members[key]

    def text_channel(self, channel_id: str, guild_id: str, visible: bool) -> MockTextChannel:
        guild = self.guild(guild_id)
        channel = MockTextChannel(id=int(channel_id), name=f"c{channel_id[-2:]}", guild=guild)
        channel.permissions_for.return_value = discord.Permissions(view_channel=visible)
        self.channels[channel_id] = channel
        guild.channels = [*guild.channels, channel]
        return channel

    def thread(self, thread_id: str, parent_id: str, private: bool) -> MockThread:
        parent = self.channels[parent_id]
        kind = discord.ChannelType.private_thread if private else discord.ChannelType.public_thread
        thread = MockThread(id=int(thread_id), name=f"t{thread_id[-2:]}", parent=parent, type=kind, archived=False)
        self.channels[thread_id] = thread
        parent.guild.threads = [*parent.guild.threads, thread]
        return thread

    def dm(self, user_id: str, name: str) -> MockDMChannel:
        if user_id not in self.dms:
            self.dms[user_id] = MockDMChannel(id=int("9" + user_id[1:]), recipient=self.member(user_id, name))
        return self.dms[user_id]

    # --- events -----------------------------------------------------------------------------------
    async def channel_created(self, channel: MockTextChannel) -> None:
        await self.listening.on_guild_channel_create(channel)

    async def thread_created(self, thread: MockThread) -> None:
        await self.listening.on_thread_create(thread)

    async def thread_archived(self, thread_id: str) -> None:
        thread = self.channels[thread_id]
        thread.archived = True
        await self.listening.on_thread_update(thread, thread)

    async def everyone_may_view(self, channel_id: str, visible: bool) -> None:
        """A permission overwrite on a channel: @everyone may view it now, or no longer (its threads get no event)."""
        channel = self.channels[channel_id]
        channel.permissions_for.return_value = discord.Permissions(view_channel=visible)
        await self.listening.on_guild_channel_update(channel, channel)

    async def member_left(self, user_id: str, guild_id: str) -> None:
        """A member leaves a guild (or is kicked): Discord's member cache no longer holds them, and discord.py
        dispatches the raw member-remove event (and the cached one) to every listener that has one."""
        member = self.members.pop(f"{user_id}:{guild_id}", None)
        data = {"guild_id": guild_id, "user": {"id": user_id, "username": "left", "discriminator": "0", "avatar": None}}
        for name, event in (("on_raw_member_remove", discord.RawMemberRemoveEvent(data, None)),  # type: ignore[arg-type]
                            ("on_member_remove", member)):  # fmt: skip
            handler = getattr(self.listening, name, None)
            if handler is not None and event is not None:
                await handler(event)

    async def member_joined(self, user_id: str, name: str, guild_id: str) -> None:
        """A member joins a guild (again): in Discord's member cache, and `on_member_join` to a listener with one."""
        member = self.member(user_id, name, guild_id)
        handler = getattr(self.listening, "on_member_join", None)
        if handler is not None:
            await handler(member)

    async def restarted(self) -> None:
        await self.listening.on_ready()

    async def say(self, message_id: str, author: MockMember, channel: object, content: str, at: datetime,
                  reply_to: str | None, reply_channel: str | None) -> None:  # fmt: skip
        reference = None
        if reply_to is not None:
            reference = discord.MessageReference(message_id=int(reply_to), channel_id=int(reply_channel or 0))
        message = MockMessage(id=int(message_id), author=author, channel=channel, content=content, created_at=at,
                              reference=reference)  # fmt: skip
        await self.listening.on_message(message)
        await self.services.live.drain()

    async def edit(self, message_id: str, author: MockMember, channel: object, content: str, at: datetime) -> None:
        message = MockMessage(id=int(message_id), author=author, channel=channel, content=content, created_at=at, edited_at=at)
        await self.listening.on_raw_message_edit(raw_edit(message))

    async def delete(self, message_id: str, channel_id: str) -> None:
        payload = discord.RawMessageDeleteEvent({"id": message_id, "channel_id": channel_id})
        await self.listening.on_raw_message_delete(payload)

    async def bulk_delete(self, message_ids: list[str], channel_id: str, guild_id: str | None) -> None:
        """A moderator's purge: several messages of one channel deleted at once (one event)."""
        data = {"ids": message_ids, "channel_id": channel_id} | ({"guild_id": guild_id} if guild_id else {})
        await self.listening.on_raw_bulk_message_delete(discord.RawBulkMessageDeleteEvent(data))  # type: ignore[arg-type]

    async def channel_deleted(self, channel_id: str) -> None:
        """A channel deleted on Discord (its threads go with it, with no event of their own), or a thread (the raw
        event, cached or not)."""
        channel = self.channels[channel_id]
        guild = channel.guild
        guild.channels = [c for c in guild.channels if c is not channel]  # a restart's refresh no longer sees them
        guild.threads = [t for t in guild.threads if t is not channel and t.parent is not channel]
        if isinstance(channel, MockThread):
            data = {"id": channel_id, "type": channel.type.value, "guild_id": str(channel.guild.id),
                    "parent_id": str(channel.parent.id)}  # fmt: skip
            await self.listening.on_raw_thread_delete(discord.RawThreadDeleteEvent(data))  # type: ignore[arg-type]
        else:
            await self.listening.on_guild_channel_delete(channel)

    # --- commands -----------------------------------------------------------------------------------
    async def set_mode(self, guild_id: str, channel_id: str, mode: str, moderator: MockMember) -> str:
        """`/memory mode`; switching off, the moderator presses "Delete what it holds"."""
        reply, view = await self.memory.set_mode(guild_id, channel_id, mode, moderator.id)
        if view is not None:
            reply = await view.on_confirm()
        return reply

    async def opt_out(self, member: MockMember) -> None:
        await invoke(self.memory.opt_out_command, self.memory, MockInteraction(user=member))

    async def opt_in(self, member: MockMember) -> None:
        await invoke(self.memory.opt_in_command, self.memory, MockInteraction(user=member))

    async def forget_me(self, member: MockMember) -> str:
        """ "forget me", confirmed: the bot's own forget."""
        return await self.memory.confirm_view(member).on_confirm()

    async def forget_member(self, guild_id: str, user_id: str, moderator: MockMember) -> None:
        """A moderator's `/memory forget-member`, confirmed."""
        _, view = self.memory.moderator_forget(self.guild(guild_id), moderator.id, f"<@{user_id}>", None)
        assert view is not None, "the moderator's forget was refused"
        await view.on_confirm()


async def discord_bot(store: GraphStore, data_dir: Path) -> DiscordBot:
    """The bot's services on `store` with no LLM (windows stay pending: the machines write what extraction would)."""
    settings = Settings(graph=GraphSettings(data_dir=data_dir))
    consent = Consent(store)
    await consent.load()
    ingestor = Ingestor(store, None, settings.extraction, settings.window)
    live = LiveWindows(store, ingestor, consent, WindowSettings())
    services = Services(settings=settings, store=store, llm=None, meter=UsageMeter(), consent=consent, ingestor=ingestor,
                        live=live)  # fmt: skip
    me = MockClientUser(id=BOT_ID, name="grapevine", display_name="grapevine")
    bot = MockBot(services=services, user=me)
    bot.guilds = []
    memory = Memory(bot)
    await memory.cog_load()
    return DiscordBot(services, bot, Listening(bot), memory)


async def close(bot: DiscordBot) -> None:
    await bot.memory.cog_unload()
    await bot.services.live.stop()
