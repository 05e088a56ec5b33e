"""Whether a message is for the bot (a mention, a reply to one of its messages, a DM), and its text as
the bot should read it. Never the bot itself and never another bot: two bots must not talk in a loop."""

from __future__ import annotations

import re

import discord

from bot.convert import STORED_TYPES, message_text
from common.text import MENTION


def replies_to(message: discord.Message, user_id: int) -> bool:
    ref = message.reference
    if ref is None or ref.type is discord.MessageReferenceType.forward:
        return False
    resolved = ref.resolved or ref.cached_message
    return isinstance(resolved, discord.Message) and resolved.author.id == user_id


def _role_mentioned(message: discord.Message, me: discord.abc.User) -> bool:
    """A mention of the bot's own managed role (how some clients autocomplete "@grapevine")."""
    if not message.role_mentions or message.guild is None:
        return False
    member = message.guild.me
    mine = {r.id for r in getattr(member, "roles", ()) if r.is_bot_managed()}
    return any(r.id in mine for r in message.role_mentions)


def is_addressed(message: discord.Message, me: discord.abc.User) -> bool:
    if message.author.bot or message.author.id == me.id or message.type not in STORED_TYPES:
        return False
    if message.guild is None:
        return True
    return any(u.id == me.id for u in message.mentions) or replies_to(message, me.id) or _role_mentioned(message, me)


def readable(message: discord.Message, me_id: int) -> str:
    """The text with the bot's mention removed and other mentions as @names."""
    names = {str(u.id): u.display_name for u in message.mentions}

    def name(match: re.Match[str]) -> str:
        if match[1] == str(me_id):
            return ""
        return "@" + names[match[1]] if match[1] in names else match[0]

    return " ".join(MENTION.sub(name, message_text(message)).split())


def addressed_text(message: discord.Message, me: discord.abc.User) -> str | None:
    """The text meant for the bot, or None when the message is not for it."""
    return readable(message, me.id) if is_addressed(message, me) else None
