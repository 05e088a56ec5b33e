"""Discord's 2,000-character message limit: long answers go out as several messages, cut at line
breaks where possible, else at spaces, and only mid-word when a single word is longer than a message."""

from __future__ import annotations

from typing import Any

import discord

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
