"""The memory cog: slash commands, and the same commands said in plain language to the bot (`bot.memory._plain`)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.addressing import addressed_text
from bot.convert import scope_of, to_user
from bot.memory import _export, _facts, _moderator, _modes, _plain, _status, _topics
from bot.memory._forget_me import (
    PROMPT,
    ConfirmForget,
    describe_report,
    forget_everything,
)
from bot.memory._plain import BROKEN, GUILD_ONLY, NEEDS_MANAGE
from bot.sending import split_message
from bot.sources import can_open
from common.events import emit
from common.ids import MENTION
from graph.models import User
from graph.reads.activity import recent_activity
from graph.reads.facts import users_by_id

if TYPE_CHECKING:
    from bot.app import GrapevineBot


class Memory(commands.Cog):
    memory = app_commands.Group(name="memory", description="What grapevine remembers about you and this server")

    def __init__(self, bot: GrapevineBot) -> None:
        self.bot = bot
        self.services = bot.services

    async def cog_load(self) -> None:
        self.bot.text_commands.append(self.claims)
        self.bot.traceless_commands.append(self.traceless)

    async def cog_unload(self) -> None:
        self.bot.text_commands.remove(self.claims)
        self.bot.traceless_commands.remove(self.traceless)

    @staticmethod
    def claims(text: str) -> bool:
        return _plain.claims(text)

    @staticmethod
    def traceless(text: str) -> bool:
        return _plain.traceless(text)

    def speaker(
        self,
        guild: discord.Guild | None,
        author: discord.abc.User,
        message_id: str | None,
        at: datetime,
        channel: object = None,
    ) -> _facts.Speaker:
        channel_id = str(channel.id) if channel is not None and hasattr(channel, "id") else None
        return _facts.Speaker(scope_of(guild, author.id), to_user(author), message_id, at, channel_id, can_open(guild, author))

    def confirm_view(self, author: discord.abc.User) -> ConfirmForget:
        names = [n for n in {author.name, author.display_name, getattr(author, "global_name", None)} if n]

        async def confirmed() -> str:
            return describe_report(await forget_everything(self.services, str(author.id), names))

        return ConfirmForget(author.id, confirmed)

    # --- plain language (bot.memory._plain) -----------------------------------------------------
    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        me = self.bot.user
        text = addressed_text(message, me) if me is not None else None
        if text is not None and me is not None:
            await _plain.answer(self, message, text, me)

    def moderator_forget(
        self,
        guild: discord.Guild,
        moderator_id: int,
        named: str,
        user: discord.abc.User | None = None,
        mentioned: Sequence[discord.abc.User] = (),
        me_id: str = "",
    ) -> tuple[str, ConfirmForget | None]:
        """The confirmation for forgetting a member of `guild` named by mention or id (also one who left), or by a
        slash command's member option (`user`); asked back when that names no one member for sure."""

        def known(user_id: str) -> discord.abc.User | None:
            found = next((u for u in mentioned if str(u.id) == user_id), None)
            return found or guild.get_member(int(user_id)) or self.bot.get_user(int(user_id))

        if user is not None and named.strip():  # a slash command given both a member and an id
            named = f"<@{user.id}> {named}"
        elif user is not None:
            named = f"<@{user.id}>"
        chosen = _moderator.target(named, me_id, lambda i: _moderator.names_of(known(i)))
        if chosen.user_id is None:
            return chosen.answer, None
        user_id = chosen.user_id
        user = user if user is not None and str(user.id) == user_id else known(user_id)
        if user is not None and user.bot:
            return _moderator.NOT_BOTS, None
        view = _moderator.confirm_view(self.services, str(guild.id), moderator_id, user_id, user)
        return _moderator.ASK.format(who=_moderator.who(user, user_id)), view

    async def status_text(self, guild_id: str) -> str:
        """`memory status`: the guild's activity of the last days is read once, for the status and the channel listing."""
        recent = await recent_activity(self.services.store, guild_id, _status.ACTIVITY_DAYS)
        return (
            await _status.status(self.services, guild_id, recent) + "\n" + await _modes.listing(self.services, guild_id, recent)
        )

    async def set_mode(
        self, guild_id: str, channel_id: str, mode: str, requester_id: int
    ) -> tuple[str, _modes.ConfirmErase | None]:
        reply = await _modes.set_here(self.services, guild_id, channel_id, mode)
        if reply != _modes.ASK_ERASE:
            return reply, None

        async def erase() -> str:
            return await _modes.erase_here(self.services, guild_id, channel_id)

        return reply, _modes.ConfirmErase(requester_id, erase)

    async def about(self, speaker: _facts.Speaker, who: str, mentioned: list[User]) -> str:
        subjects = await _facts.find_subjects(self.services, speaker, who, mentioned)
        if not subjects:
            return f"I don't know anyone or anything called “{who}” here."
        if len(subjects) == 1:
            return await _facts.describe(self.services, speaker, subjects[0])
        answers = [await _facts.describe(self.services, speaker, s) for s in subjects]
        return "\n\n".join([f"{len(subjects)} members here go by “{who.lstrip('@')}”; for each of them:", *answers])

    # --- slash commands -------------------------------------------------------------------------
    async def _mentioned(self, text: str) -> tuple[str, list[User]]:
        """Users a slash command's text mentions as <@id>, and the text with @names instead."""
        ids = list(dict.fromkeys(MENTION.findall(text)))
        users = {u.id: u for u in await users_by_id(self.services.store, ids)} if ids else {}
        for i in ids:
            found = self.bot.get_user(int(i))
            if found is not None:
                users[i] = to_user(found)
        named = MENTION.sub(lambda m: "@" + users[m[1]].display_name if m[1] in users else m[0], text)
        return named, [u for u in users.values() if not u.is_bot]

    async def _answer(self, interaction: discord.Interaction, text: str) -> None:
        for chunk in split_message(text):
            await interaction.followup.send(chunk, ephemeral=True, allowed_mentions=discord.AllowedMentions.none())

    def _slash_speaker(self, interaction: discord.Interaction) -> _facts.Speaker:
        return self.speaker(interaction.guild, interaction.user, None, interaction.created_at, interaction.channel)

    @app_commands.command(name="remember", description="Tell grapevine something to remember")
    @app_commands.describe(fact="For example: I live in Berlin, or @gruzilkin is Sergey")
    async def remember_command(self, interaction: discord.Interaction, fact: str) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        text, mentioned = await self._mentioned(fact)
        await self._answer(interaction, await _facts.remember(self.services, self._slash_speaker(interaction), text, mentioned))

    @app_commands.command(name="forget-me", description="Delete everything grapevine remembers about you")
    async def forget_me_command(self, interaction: discord.Interaction) -> None:
        view = self.confirm_view(interaction.user)
        await interaction.response.send_message(PROMPT, view=view, ephemeral=True)
        view.message = await interaction.original_response()

    @memory.command(name="about", description="What grapevine remembers about someone (you, by default)")
    async def about_command(self, interaction: discord.Interaction, member: discord.User | None = None) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        speaker = self._slash_speaker(interaction)
        subject = _facts.person(to_user(member)) if member is not None else _facts.person(speaker.author)
        await self._answer(interaction, await _facts.describe(self.services, speaker, subject))

    @memory.command(name="who-knows", description="Who talked about a topic here, with a message of each")
    @app_commands.describe(topic="For example: kubernetes, or the server move")
    async def who_knows_command(self, interaction: discord.Interaction, topic: str) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        await self._answer(interaction, await _topics.who_knows(self.services, self._slash_speaker(interaction), topic))

    @memory.command(name="timeline", description="What happened with a topic or a member, oldest first")
    @app_commands.describe(topic="A member (@name) or a thing, e.g. the server move", at="As of this date, e.g. 2024-05-10")
    async def timeline_command(self, interaction: discord.Interaction, topic: str, at: str | None = None) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        named, mentioned = await self._mentioned(topic)
        await self._answer(
            interaction, await _topics.timeline(self.services, self._slash_speaker(interaction), named, mentioned, at)
        )

    @memory.command(name="forget", description="Forget facts about you, or that you told, matching some words")
    @app_commands.describe(what="Words of the fact to forget, e.g. moving to Austin")
    async def forget_command(self, interaction: discord.Interaction, what: str) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        await self._answer(interaction, await _facts.forget(self.services, self._slash_speaker(interaction), what))

    @memory.command(name="opt-out", description="Stop grapevine from storing anything you say")
    async def opt_out_command(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        await self._answer(interaction, await _status.opt_out(self.services, str(interaction.user.id)))

    @memory.command(name="opt-in", description="Let grapevine remember what you say again")
    async def opt_in_command(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        await self._answer(interaction, await _status.opt_in(self.services, str(interaction.user.id)))

    @memory.command(name="export", description="Get everything grapevine holds about you and from you, as files in a DM")
    async def export_command(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        await self._answer(interaction, await _export.deliver(self.services, interaction.user))

    @memory.command(name="forget-member", description="Forget a member in this server, on their request (Manage Server)")
    @app_commands.describe(member="The member to forget", user_id="Or their user id (also for someone who left)")
    @app_commands.checks.has_permissions(manage_guild=True)
    async def forget_member_command(
        self, interaction: discord.Interaction, member: discord.User | None = None, user_id: str | None = None
    ) -> None:
        if interaction.guild is None:
            await interaction.response.send_message(GUILD_ONLY, ephemeral=True)
            return
        reply, view = self.moderator_forget(interaction.guild, interaction.user.id, user_id or "", member)
        if view is None:
            await interaction.response.send_message(reply, ephemeral=True)
            return
        await interaction.response.send_message(reply, view=view, ephemeral=True)
        view.message = await interaction.original_response()

    @memory.command(name="status", description="Memory health of this server (Manage Server)")
    @app_commands.checks.has_permissions(manage_guild=True)
    async def status_command(self, interaction: discord.Interaction) -> None:
        if interaction.guild is None:
            await interaction.response.send_message(GUILD_ONLY, ephemeral=True)
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        await self._answer(interaction, await self.status_text(str(interaction.guild.id)))

    @memory.command(name="mode", description="Where what is said in this channel may be recalled (Manage Server)")
    @app_commands.describe(mode="off: not recorded; private: recalled only here and in its threads; shared: anywhere here")
    @app_commands.choices(mode=[app_commands.Choice(name=m, value=m) for m in ("off", "private", "shared")])
    @app_commands.checks.has_permissions(manage_guild=True)
    async def mode_command(self, interaction: discord.Interaction, mode: str) -> None:
        if interaction.guild is None or interaction.channel is None:
            await interaction.response.send_message(GUILD_ONLY, ephemeral=True)
            return
        reply, view = await self.set_mode(str(interaction.guild.id), str(interaction.channel.id), mode, interaction.user.id)
        if view is None:
            await interaction.response.send_message(reply, ephemeral=True)
            return
        await interaction.response.send_message(reply, view=view, ephemeral=True)
        view.message = await interaction.original_response()

    async def cog_app_command_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
        if isinstance(error, app_commands.MissingPermissions):
            text = NEEDS_MANAGE
        elif isinstance(error, app_commands.NoPrivateMessage):
            text = GUILD_ONLY
        else:
            emit(
                "bot",
                "memory_command_failed",
                level=logging.ERROR,
                command=getattr(interaction.command, "name", None),
                error=type(getattr(error, "original", error)).__name__,
                reason=str(error)[:300],
            )
            text = BROKEN
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)
