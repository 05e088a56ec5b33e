"""Discord objects as the graph's records: the place a message belongs to (guild and channel: text,
thread, forum post or DM), its author, the message itself.

A DM has no guild; it is kept in a memory of its own, `dm:<user id>` (the person the bot talks to), so
every read stays scoped to one guild id and forget-me can remove the whole conversation.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC

import discord

from common.message_text import is_conversation, stored_text
from graph.models import Channel, ChannelKind, Guild, Message, User, dm_scope

STORED_TYPES = tuple(kind for kind in discord.MessageType if is_conversation(kind.name))


@dataclass(frozen=True)
class Place:
    guild: Guild
    channel: Channel


def scope_of(guild: discord.Guild | None, user_id: int | str) -> str:
    """The memory a command works in: the guild's, or the DM memory of the member."""
    return str(guild.id) if guild is not None else dm_scope(user_id)


def channel_kind(channel: object) -> ChannelKind:
    if isinstance(channel, discord.DMChannel | discord.GroupChannel):
        return ChannelKind.DM
    if isinstance(channel, discord.Thread):
        return ChannelKind.FORUM_POST if isinstance(channel.parent, discord.ForumChannel) else ChannelKind.THREAD
    if isinstance(channel, discord.VoiceChannel | discord.StageChannel):
        return ChannelKind.VOICE
    return ChannelKind.TEXT


def place_of(message: discord.Message, me_id: int) -> Place | None:
    """Guild and channel of a message; None for a DM whose other person is unknown (the bot's own, uncached)."""
    channel = message.channel
    if message.guild is not None:
        kind = channel_kind(channel)
        parent = str(channel.parent_id) if isinstance(channel, discord.Thread) and channel.parent_id else None
        name = getattr(channel, "name", None) or str(channel.id)
        guild = Guild(id=str(message.guild.id), name=message.guild.name)
        return Place(guild, Channel(id=str(channel.id), guild_id=guild.id, name=name, kind=kind, parent_id=parent))
    if message.author.id != me_id:
        partner: int | None = message.author.id
    else:
        recipient = getattr(channel, "recipient", None)
        partner = recipient.id if recipient is not None else None
    if partner is None:
        return None
    scope = dm_scope(partner)
    # No names here: the DM's scope already says whose conversation it is.
    return Place(
        Guild(id=scope, name="direct messages"),
        Channel(id=str(channel.id), guild_id=scope, name="direct message", kind=ChannelKind.DM),
    )


def to_user(author: discord.abc.User) -> User:
    return User(id=str(author.id), name=author.name, display_name=author.display_name, is_bot=author.bot)


def reply_to_id(message: discord.Message) -> str | None:
    ref = message.reference
    if ref is None or ref.message_id is None or ref.type is discord.MessageReferenceType.forward:
        return None
    return str(ref.message_id)


def message_text(message: discord.Message) -> str:
    """The text, with attachments and stickers named (as an import stores the same message)."""
    return stored_text(message.content, [a.filename for a in message.attachments], [s.name for s in message.stickers])


def to_message(message: discord.Message, place: Place) -> Message:
    created = message.created_at if message.created_at.tzinfo else message.created_at.replace(tzinfo=UTC)
    return Message(
        id=str(message.id),
        guild_id=place.guild.id,
        channel_id=place.channel.id,
        author_id=str(message.author.id),
        content=message_text(message),
        created_at=created,
        edited_at=message.edited_at,
        reply_to_id=reply_to_id(message),
    )
