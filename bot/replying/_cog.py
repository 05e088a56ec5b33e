"""The replying cog: a message for the bot gets an answer with memory, unless a text command claims it."""

from __future__ import annotations

import contextlib
import time
from typing import TYPE_CHECKING

import discord
from discord.ext import commands

from bot.addressing import addressed_text
from bot.replying._answer import compose
from bot.replying._limits import ReplyLimits
from bot.sending import reply_or_log, send_reply
from common.events import emit

if TYPE_CHECKING:
    from bot.app import GrapevineBot


class Replying(commands.Cog):
    def __init__(self, bot: GrapevineBot) -> None:
        self.bot = bot
        self.limits = ReplyLimits(bot.services.settings.reply)

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        me = self.bot.user
        if me is None:
            return
        text = addressed_text(message, me)
        if text is None or self.bot.claimed(text):
            return
        guild_id = str(message.guild.id) if message.guild else "dm"
        allowed, instead = self.limits.check(guild_id, str(message.channel.id), str(message.author.id), message.created_at)
        if not allowed:
            emit("bot", "reply_limited", guild_id=guild_id, channel_id=str(message.channel.id), told=instead is not None)
            if instead is not None:
                with contextlib.suppress(discord.HTTPException):
                    await send_reply(message, [instead])
            return
        started = time.perf_counter()
        async with contextlib.AsyncExitStack() as stack:
            with contextlib.suppress(discord.HTTPException):
                await stack.enter_async_context(message.channel.typing())
            answer = await compose(self.bot.services, message, text, me)
        if await reply_or_log(message, answer.chunks) is None:
            return
        emit(
            "bot",
            "reply_sent",
            guild_id=str(message.guild.id) if message.guild else "dm",
            channel_id=str(message.channel.id),
            message_id=str(message.id),
            outcome=answer.outcome,
            chunks=len(answer.chunks),
            chars=sum(len(c) for c in answer.chunks),
            context_tokens=answer.context.total_tokens,
            latency_ms=round((time.perf_counter() - started) * 1000),
        )
