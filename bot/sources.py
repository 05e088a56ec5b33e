"""Message links on the bot's answers: which channels the asker can open, and the line of sources an answer ends
with (recall/sources.py picks them, common/links.py writes them)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import discord

from common.links import jump_url, sources_line
from recall.assemble import ReplyContext
from recall.sources import cited


def can_open(guild: discord.Guild | None, member: Any) -> Callable[[str], bool]:
    """Whether `member` can view a channel of `guild`, as Discord's permissions say. Reads already keep only the
    channels the asking channel may recall (the channel-scope rule); this also leaves out a shared channel the
    asker cannot view. A channel Discord's cache lacks (an archived thread) is left to that rule. In a DM, its
    links are the DM's own."""
    if guild is None:
        return lambda _: True

    def check(channel_id: str) -> bool:
        channel = guild.get_channel_or_thread(int(channel_id)) if channel_id.isdigit() else None
        return channel is None or bool(channel.permissions_for(member).view_channel)

    return check


def with_sources(answer: str, context: ReplyContext, guild_id: str, asker_name: str, opens: Callable[[str], bool]) -> str:
    """The answer, ending with the links of the memories it drew on (none: unchanged)."""
    urls = [
        url
        for channel_id, message_id in cited(context.citable, answer, asker_name, can_open=opens)
        if (url := jump_url(guild_id, channel_id, message_id))
    ]
    return f"{answer.rstrip()}\n{sources_line(urls)}" if urls else answer
