"""Memory commands: remember, forget, what-do-you-know, forget-me, opt-out/in and status."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.memory._cog import Memory

__all__ = ["Memory", "setup"]

if TYPE_CHECKING:
    from bot.app import GrapevineBot


async def setup(bot: GrapevineBot) -> None:
    await bot.add_cog(Memory(bot))
