"""Channel visibility from Discord's own permissions, kept on the graph's Channel nodes (graph/privacy/channels.py):
read when a channel is first seen, on channel, thread and @everyone role changes, and for every channel at
start. The modes in force are cached in `Services.channel_modes` so the listener skips `off` channels."""

from __future__ import annotations

import discord

from bot.convert import channel_kind
from bot.services import Services
from common.events import emit
from graph.models import Channel, Guild
from graph.privacy.channels import Visibility, set_visibility
from graph.writes.discord_records import upsert_channel, upsert_guild


def visibility_of(channel: object) -> Visibility:
    """'public' when the guild's @everyone role can view the channel (with its overwrites); a thread follows its
    parent, a private thread is restricted, a DM is its own space."""
    if isinstance(channel, discord.Thread):
        if channel.type is discord.ChannelType.private_thread or channel.parent is None:
            return "restricted"
        channel = channel.parent
    guild = getattr(channel, "guild", None)
    if guild is None or not isinstance(channel, discord.abc.GuildChannel):
        return "restricted"
    return "public" if channel.permissions_for(guild.default_role).view_channel else "restricted"


def channel_record(channel: discord.abc.GuildChannel | discord.Thread) -> Channel:
    parent = str(channel.parent_id) if isinstance(channel, discord.Thread) and channel.parent_id else None
    return Channel(
        id=str(channel.id),
        guild_id=str(channel.guild.id),
        name=getattr(channel, "name", None) or str(channel.id),
        kind=channel_kind(channel),
        parent_id=parent,
    )


class ChannelWatch:
    def __init__(self, services: Services) -> None:
        self.services = services

    def is_off(self, channel_id: str) -> bool:
        return self.services.channel_modes.get(channel_id) == "off"

    async def remember(self, guild_id: str, channel_id: str, visibility: Visibility) -> None:
        mode = await set_visibility(self.services.store, guild_id, channel_id, visibility)
        if mode is not None:
            self.services.channel_modes[channel_id] = mode

    async def refresh(self, channel: discord.abc.GuildChannel | discord.Thread) -> None:
        """Store the channel (and its guild) with what @everyone can see now."""
        if isinstance(channel, discord.CategoryChannel):
            return
        store = self.services.store
        await upsert_guild(store, Guild(id=str(channel.guild.id), name=channel.guild.name))
        await upsert_channel(store, channel_record(channel))
        await self.remember(str(channel.guild.id), str(channel.id), visibility_of(channel))

    async def refresh_guild(self, guild: discord.Guild) -> int:
        """Every channel and thread of a guild (parents first: threads follow their parent's mode)."""
        channels: list[discord.abc.GuildChannel | discord.Thread] = [
            c for c in guild.channels if not isinstance(c, discord.CategoryChannel)
        ]
        channels.extend(guild.threads)
        done = 0
        for channel in channels:
            try:
                await self.refresh(channel)
                done += 1
            except Exception as exc:  # noqa: BLE001 - one channel's failure leaves the others current
                emit(
                    "bot", "channel_refresh_failed", guild_id=str(guild.id), channel_id=str(channel.id), error=type(exc).__name__
                )
        emit("bot", "channels_refreshed", guild_id=str(guild.id), channels=done)
        return done
