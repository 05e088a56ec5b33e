"""Discord objects as the graph's records: guilds, channels (text, thread, forum post, DM), users, messages.

A DM has no guild; it is kept in a guild of its own, `dm:<user id>` (the person the bot talks to), so
every read stays scoped to one guild and forget-me can remove the whole conversation.
"""

from __future__ import annotations

from datetime import datetime, timezone

import discord

from graph.models import Channel, ChannelKind, Guild, Message, User

RECORDED_TYPES = (discord.MessageType.default, discord.MessageType.reply)


def dm_guild_id(user_id: int | str) -> str:
    return f"dm:{user_id}"


def dm_partner(channel: discord.DMChannel, author: discord.abc.User) -> int:
    """The person in a DM with the bot (the author, unless the bot wrote the message)."""
    recipient = channel.recipient
    return recipient.id if recipient is not None else author.id


def guild_id_of(message: discord.Message) -> str:
    if message.guild is not None:
        return str(message.guild.id)
    channel = message.channel
    if isinstance(channel, discord.DMChannel):
        return dm_guild_id(dm_partner(channel, message.author))
    return dm_guild_id(message.author.id)


def guild_of(message: discord.Message) -> Guild:
    if message.guild is not None:
        return Guild(id=str(message.guild.id), name=message.guild.name)
    return Guild(id=guild_id_of(message), name="direct messages")


def channel_kind(channel: discord.abc.Messageable) -> ChannelKind:
    if isinstance(channel, discord.DMChannel | discord.GroupChannel):
        return ChannelKind.DM
    if isinstance(channel, discord.Thread):
        return ChannelKind.FORUM_POST if isinstance(channel.parent, discord.ForumChannel) else ChannelKind.THREAD
    if isinstance(channel, discord.VoiceChannel | discord.StageChannel):
        return ChannelKind.VOICE
    return ChannelKind.TEXT


def channel_of(message: discord.Message) -> Channel:
    channel = message.channel
    kind = channel_kind(channel)
    parent_id = str(channel.parent_id) if isinstance(channel, discord.Thread) and channel.parent_id else None
    # A DM's name would carry the member's name; the guild id already says whose conversation it is.
    name = "direct message" if kind == ChannelKind.DM else (getattr(channel, "name", None) or str(channel.id))
    return Channel(id=str(channel.id), guild_id=guild_id_of(message), name=name, kind=kind, parent_id=parent_id)


def user_of(author: discord.abc.User) -> User:
    return User(id=str(author.id), name=author.name, display_name=author.display_name, is_bot=author.bot)


def reply_to_id(message: discord.Message) -> str | None:
    ref = message.reference
    if ref is None or ref.message_id is None or ref.type != discord.MessageReferenceType.reply:
        return None
    return str(ref.message_id)


def content_of(message: discord.Message) -> str:
    """The text, with attachments named so that "look at this" is not an empty message."""
    names = [f"[attachment: {a.filename}]" for a in message.attachments]
    return "\n".join([message.content, *names]) if names and message.content else message.content or "\n".join(names)


def message_of(message: discord.Message) -> Message:
    return Message(
        id=str(message.id), guild_id=guild_id_of(message), channel_id=str(message.channel.id),
        author_id=str(message.author.id), content=content_of(message), created_at=_aware(message.created_at),
        edited_at=_aware(message.edited_at) if message.edited_at else None, reply_to_id=reply_to_id(message),
    )


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
