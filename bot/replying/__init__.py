"""Replying: answers mentions, replies to the bot and DMs, with what the graph remembers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.replying._cog import Replying

__all__ = ["Replying", "setup"]

if TYPE_CHECKING:
    from bot.app import GrapevineBot


async def setup(bot: GrapevineBot) -> None:
    await bot.add_cog(Replying(bot))
