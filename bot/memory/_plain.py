"""The memory commands said in plain language to the bot (`@grapevine remember ...`, `who knows about ...`): which
command a message is, the command run, and its answer sent as a reply. The cog (`bot.memory._cog`) listens and
holds what slash commands share with these."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

import discord

from bot.convert import to_user
from bot.memory import _export, _facts, _moderator, _modes, _status, _topics
from bot.memory._forget_me import PROMPT, ConfirmForget
from bot.memory._parse import TextCommand, parse
from bot.sending import reply_or_log, split_message
from bot.services import Services
from common.events import emit
from common.ids import MENTION
from graph.models import User

BROKEN = "Something went wrong with my memory just now; please try again in a bit."
GUILD_ONLY = "That only works in a server."
NEEDS_MANAGE = "That needs the Manage Server permission."
View = ConfirmForget | _modes.ConfirmErase


class Commands(Protocol):
    """What a plain-language command runs on: the memory cog's own steps, shared with its slash commands."""

    services: Services

    def speaker(
        self, guild: discord.Guild | None, author: discord.abc.User, message_id: str | None, at: datetime, channel: object = None
    ) -> _facts.Speaker: ...

    def confirm_view(self, author: discord.abc.User) -> ConfirmForget: ...

    def moderator_forget(
        self,
        guild: discord.Guild,
        moderator_id: int,
        named: str,
        user: discord.abc.User | None = None,
        mentioned: Sequence[discord.abc.User] = (),
        me_id: str = "",
    ) -> tuple[str, ConfirmForget | None]: ...

    async def status_text(self, guild_id: str) -> str: ...

    async def set_mode(
        self, guild_id: str, channel_id: str, mode: str, requester_id: int
    ) -> tuple[str, _modes.ConfirmErase | None]: ...

    async def about(self, speaker: _facts.Speaker, who: str, mentioned: list[User]) -> str: ...


def claims(text: str) -> bool:
    """Whether a message for the bot is a memory command (then the replying cog leaves it)."""
    return parse(text) is not None or _topics.parse(text) is not None


def traceless(text: str) -> bool:
    """Whether a memory command said in a message leaves no trace in the graph (all but `remember`)."""
    command = parse(text)
    return (command is not None and command.kind != "remember") or (command is None and _topics.parse(text) is not None)


async def answer(cog: Commands, message: discord.Message, text: str, me: discord.abc.User) -> None:
    """Run the command `text` says, if it says one, and reply with its answer; a command that fails gets BROKEN
    as its answer, and the operator the event."""
    command = parse(text)
    topic = _topics.parse(text) if command is None else None
    if command is None and topic is None:
        return
    kind = command.kind if command is not None else topic.kind if topic is not None else ""
    view: View | None = None
    try:
        if command is not None:
            reply, view = await run_text(cog, message, command, me)
        elif topic is not None:
            reply = await run_topic(cog, message, topic, me)
    except Exception as exc:  # noqa: BLE001 - the member gets an answer, the operator the event
        emit("bot", "memory_command_failed", level=logging.ERROR, command=kind, error=type(exc).__name__, reason=str(exc)[:300])
        reply = BROKEN
    sent = await reply_or_log(message, split_message(reply), view=view)
    if sent is None:
        return
    if view is not None and sent:
        view.message = sent[0]
    emit("bot", "memory_command", command=kind, via="message")


async def run_text(
    cog: Commands, message: discord.Message, command: TextCommand, me: discord.abc.User
) -> tuple[str, View | None]:
    services, author = cog.services, message.author
    speaker = cog.speaker(message.guild, author, str(message.id), message.created_at, message.channel)
    mentioned = [to_user(u) for u in message.mentions if u.id != me.id and not u.bot]
    match command.kind:
        case "remember":
            return await _facts.remember(services, speaker, command.arg, mentioned), None
        case "forget":
            return await _facts.forget(services, speaker, command.arg), None
        case "about":
            return await cog.about(speaker, command.arg, mentioned), None
        case "forget_me":
            return PROMPT, cog.confirm_view(author)
        case "export":
            return await _export.deliver(services, author), None
        case "opt_out":
            return await _status.opt_out(services, str(author.id), str(message.id)), None
        case "opt_in":
            return await _status.opt_in(services, str(author.id)), None
        case "forget_member" | "status" | "mode":
            return await run_moderator_text(cog, message, command, me)
    raise AssertionError(command.kind)


async def run_moderator_text(
    cog: Commands, message: discord.Message, command: TextCommand, me: discord.abc.User
) -> tuple[str, View | None]:
    """A command for those who may manage the guild, in a guild only."""
    guild, author = message.guild, message.author
    if guild is None:
        return GUILD_ONLY, None
    if not getattr(author, "guild_permissions", discord.Permissions.none()).manage_guild:
        return NEEDS_MANAGE, None
    match command.kind:
        case "forget_member":
            named = _moderator.named_part(message.content)
            return cog.moderator_forget(guild, author.id, named, None, message.mentions, str(me.id))
        case "status":
            return await cog.status_text(str(guild.id)), None
        case "mode":
            return await cog.set_mode(str(guild.id), str(message.channel.id), command.arg.casefold(), author.id)
    raise AssertionError(command.kind)


async def run_topic(cog: Commands, message: discord.Message, command: _topics.TopicCommand, me: discord.abc.User) -> str:
    speaker = cog.speaker(message.guild, message.author, str(message.id), message.created_at, message.channel)
    if command.kind == "who_knows":
        return await _topics.who_knows(cog.services, speaker, command.topic)
    mentioned = [to_user(u) for u in message.mentions if u.id != me.id and not u.bot]
    topic = MENTION.sub(lambda m: next((u.display_name for u in mentioned if u.id == m[1]), m[0]), command.topic)
    return await _topics.timeline(cog.services, speaker, topic, mentioned, command.at)
