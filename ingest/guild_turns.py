"""Whose turn it is to extract: one extraction at a time per guild (two windows never supersede the same fact
at once), `guild_concurrency` guilds at once, and none while paused (forget-me deletes inside a pause, so
nothing extracted from a forgotten member's messages can land after it)."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager


class GuildTurns:
    def __init__(self, guild_concurrency: int) -> None:
        self._guild_locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._slots = asyncio.Semaphore(guild_concurrency)
        self._running = asyncio.Event()  # cleared while paused: no extraction starts
        self._running.set()
        self._pausing = asyncio.Lock()

    @asynccontextmanager
    async def paused(self) -> AsyncIterator[None]:
        """No extraction runs inside: the ones in flight finish (and write) first, new ones wait."""
        async with self._pausing, AsyncExitStack() as held:
            self._running.clear()
            try:
                for guild in sorted(self._guild_locks):
                    await held.enter_async_context(self._guild_locks[guild])
                yield
            finally:
                self._running.set()

    @asynccontextmanager
    async def turn(self, guild_id: str) -> AsyncIterator[None]:
        """Held while a guild's extraction runs (the lock is taken only once not paused, re-checked after waiting
        for it)."""
        while True:
            await self._running.wait()
            async with self._guild_locks[guild_id]:
                if not self._running.is_set():
                    continue  # paused while waiting for the lock, and this guild's lock was not held
                async with self._slots:
                    yield
                    return
