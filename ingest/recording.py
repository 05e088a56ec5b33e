"""Recording messages in short ticks: the bot hands each message over without waiting for the graph, and
one writer stores everything handed over since its last write in one transaction per batch.

The rule, which `LiveWindows` relies on: a message handed over is written before `flush()` returns, so a
window flushes before it is submitted and the bot flushes at shutdown. A batch the graph refuses stays
pending and is tried again at the next tick, up to DROP_AFTER_FAILURES times; the window that holds its
messages records them again when it closes.
A crash loses at most the last tick's messages, which the window buffer then holds nowhere either.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from common.events import emit
from graph.models import Message, User
from graph.store import GraphStore

DROP_AFTER_FAILURES = 5  # then the batch is left to the windows holding its messages (they record it again)


class MessageRecorder:
    def __init__(
        self,
        store: GraphStore,
        *,
        tick_seconds: float = 0.05,
        max_batch: int = 1000,
        on_refused: Callable[[Message], object] | None = None,
        allowed: Callable[[str], bool] = lambda _user_id: True,
    ) -> None:
        self.store = store
        self.tick_seconds = tick_seconds
        self.max_batch = max_batch
        self.on_refused = on_refused
        self.allowed = allowed  # consent, asked again when a batch is written: an opt-out meanwhile wins
        self._pending: list[tuple[Message, User]] = []
        self._lock = asyncio.Lock()  # one writer: batches reach the graph in the order they were handed over
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.recorded = 0
        self.batches = 0

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="grapevine-recorder")

    def add(self, message: Message, author: User) -> None:
        """Hand one message over; it is written at the next tick (never awaited here)."""
        self._pending.append((message, author))
        if len(self._pending) >= self.max_batch:
            self._wake.set()

    def pending(self) -> int:
        return len(self._pending)

    def drop_user(self, user_id: str) -> int:
        """Forget-me: the member's messages not yet written are never written."""
        kept = [(m, a) for m, a in self._pending if a.id != user_id]
        dropped, self._pending = len(self._pending) - len(kept), kept
        return dropped

    async def flush(self) -> None:
        """Write everything handed over so far (raises if the graph refuses it; it stays pending then)."""
        async with self._lock:
            while self._pending:
                batch, self._pending = self._pending[: self.max_batch], self._pending[self.max_batch :]
                try:
                    await self._write([(m, a) for m, a in batch if self.allowed(a.id)])
                except BaseException:
                    self._pending[:0] = batch
                    raise

    async def stop(self) -> None:
        """Stop the ticks and write what is pending (shutdown)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        await self.flush()

    async def _write(self, batch: list[tuple[Message, User]]) -> None:
        if not batch:
            return
        by_guild: dict[str, dict[str, User]] = {}
        for message, author in batch:
            by_guild.setdefault(message.guild_id, {})[author.id] = author
        for guild_id, authors in by_guild.items():
            await self.store.upsert_users(list(authors.values()), guild_id)
        refused = set(await self.store.record_messages([m for m, _ in batch]))
        self.recorded += len(batch) - len(refused)
        self.batches += 1
        for message, _ in batch:
            if message.id in refused:
                emit("ingest", "message_id_refused", message_id=message.id, guild_id=message.guild_id)
                if self.on_refused:
                    self.on_refused(message)

    async def _run(self) -> None:
        failures = 0
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.tick_seconds):
                    await self._wake.wait()
            self._wake.clear()
            try:
                await self.flush()
                failures = 0
            except Exception as exc:  # noqa: BLE001 - kept pending, tried again at the next tick
                failures += 1
                emit("ingest", "message_batch_failed", pending=len(self._pending), attempt=failures, error=type(exc).__name__)
                if failures >= DROP_AFTER_FAILURES:  # a batch the graph never takes must not hold back every later one
                    dropped, self._pending = self._pending[: self.max_batch], self._pending[self.max_batch :]
                    emit("ingest", "message_batch_dropped", messages=len(dropped))
                    failures = 0
                await asyncio.sleep(min(1.0, self.tick_seconds * 10))
