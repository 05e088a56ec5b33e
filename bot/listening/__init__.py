"""Listening: every message the bot can see is stored and buffered into conversation windows."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.listening._cog import Listening

__all__ = ["Listening", "setup"]

if TYPE_CHECKING:
    from bot.app import GrapevineBot


async def setup(bot: GrapevineBot) -> None:
    await bot.add_cog(Listening(bot))
