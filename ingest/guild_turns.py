"""Whose turn it is to extract: one extraction at a time per guild (two windows never supersede the same fact
at once), `guild_concurrency` guilds at once, and none while paused (forget-me deletes inside a pause, so
nothing extracted from a forgotten member's messages can land after it). With `lock_dir` (the data directory),
a guild's turn is also a lock on a file there, so two processes on one graph (two imports started together) take
turns too: the second finds the windows the first extracted done, and asks the LLM nothing for them."""

from __future__ import annotations

import asyncio
import fcntl
from collections import defaultdict
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path

from common.files import private_dir, private_opener

TURN_POLL_S = 0.1  # how often a guild's turn waiting for another process's tries its file lock again


class GuildTurns:
    def __init__(self, guild_concurrency: int, lock_dir: Path | None = None) -> None:
        self.lock_dir = lock_dir
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
                async with self._slots, self._across_processes(guild_id):
                    yield
                    return

    @asynccontextmanager
    async def _across_processes(self, guild_id: str) -> AsyncIterator[None]:
        if self.lock_dir is None:
            yield
            return
        folder = private_dir(self.lock_dir / "turns")
        with open(folder / f"{guild_id.replace(':', '-')}.lock", "a+", encoding="utf-8", opener=private_opener) as handle:  # noqa: ASYNC230 - a local lock file: no wait
            while True:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    await asyncio.sleep(TURN_POLL_S)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
