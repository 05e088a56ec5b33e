"""Discord's 2,000-character message limit: long answers go out as several messages, cut at line
breaks where possible, else at spaces, and only mid-word when a single word is longer than a message."""

from __future__ import annotations

import logging
from typing import Any

import discord

from common.events import emit

LIMIT = 2000


def _cut(text: str, limit: int) -> int:
    """Where to cut `text` (longer than `limit`): a line break in the second half, else a space, else anything."""
    for sep in ("\n\n", "\n", " "):
        at = text.rfind(sep, 0, limit + 1)
        if at >= limit // 2:
            return at
    for sep in ("\n", " "):
        at = text.rfind(sep, 0, limit + 1)
        if at > 0:
            return at
    return limit


def split_message(text: str, limit: int = LIMIT) -> list[str]:
    chunks: list[str] = []
    rest = text.strip()
    while len(rest) > limit:
        at = _cut(rest, limit)
        head = rest[:at].rstrip()
        if head:
            chunks.append(head)
        rest = rest[at:].lstrip()
    if rest:
        chunks.append(rest)
    return chunks


async def send_reply(
    message: discord.Message, chunks: list[str], *, view: discord.ui.View | None = None
) -> list[discord.Message]:
    """The first chunk as a reply to `message` (with `view`, if any), the rest after it in the channel;
    nothing pings anyone."""
    sent = []
    for i, chunk in enumerate(chunks):
        if i == 0:
            extra: dict[str, Any] = {"view": view} if view is not None else {}
            sent.append(
                await message.reply(chunk, mention_author=False, allowed_mentions=discord.AllowedMentions.none(), **extra)
            )
        else:
            sent.append(await message.channel.send(chunk, allowed_mentions=discord.AllowedMentions.none()))
    return sent


async def reply_or_log(
    message: discord.Message, chunks: list[str], *, view: discord.ui.View | None = None
) -> list[discord.Message] | None:
    """`send_reply`; a reply Discord refuses (a deleted message, a channel it may no longer write in) is the
    operator's `reply_failed` event and None, never an error of the listener."""
    try:
        return await send_reply(message, chunks, view=view)
    except discord.HTTPException as exc:
        emit(
            "bot",
            "reply_failed",
            level=logging.WARNING,
            channel_id=str(message.channel.id),
            status=exc.status,
            error=type(exc).__name__,
        )
        return None
