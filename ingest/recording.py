"""Recording messages in short ticks: the bot hands each message over without waiting for the graph, and
one writer stores everything handed over since its last write in one transaction per batch.

The rule, which `LiveWindows` relies on: a message handed over is written before `flush()` returns, so a
window flushes before it is submitted and the bot flushes at shutdown. A batch the graph refuses stays
pending and is tried again at the next tick, up to DROP_AFTER_FAILURES times; the window that holds its
messages records them again when it closes.
A crash loses at most the last tick's messages, which the window buffer then holds nowhere either.

A batch is one transaction: its authors upserted (only those new to this recorder or changed since: a cache of
what it wrote, which forgets a member on forget-me), its messages created. The recorder also remembers which
messages it did not write (refused ids, batches dropped, members it was told are opted out), so a closing
window records again only when one of its messages is among them (`settle`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from common.events import emit
from graph.models import Message, User
from graph.store import GraphStore
from graph.writes.messages import record_batch

DROP_AFTER_FAILURES = 5  # then the batch is left to the windows holding its messages (they record it again)
KNOWN_AUTHORS = 100_000  # (guild, member) pairs remembered as stored; past this the cache starts again empty


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
        self._known: dict[tuple[str, str], tuple[str, str, bool]] = {}  # (guild, user) -> the names stored
        self._unwritten: set[str] = set()  # handed over, not written: a window holding one records itself
        self._refused: set[str] = set()  # ids another guild, channel or author holds

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
        self.forget_author(user_id)
        kept = [(m, a) for m, a in self._pending if a.id != user_id]
        dropped, self._pending = len(self._pending) - len(kept), kept
        return dropped

    def forget_author(self, user_id: str) -> None:
        """The member's next message upserts them again (their node may be gone after a forget)."""
        self._known = {k: v for k, v in self._known.items() if k[1] != user_id}

    def unsettled(self, message_ids: list[str]) -> tuple[set[str], set[str]]:
        """For a closing window, after `flush`: those of its messages this recorder did not write (the window
        records them itself), and those refused. Ids the recorder never saw were stored before (a restart)."""
        ids = set(message_ids)
        return ids & self._unwritten, ids & self._refused

    def release(self, message_ids: list[str]) -> None:
        """The window holding these messages is recorded: nothing more to remember of them."""
        self._unwritten.difference_update(message_ids)
        self._refused.difference_update(message_ids)

    async def flush(self) -> None:
        """Write everything handed over so far (raises if the graph refuses it; it stays pending then)."""
        async with self._lock:
            while self._pending:
                batch, self._pending = self._pending[: self.max_batch], self._pending[self.max_batch :]
                allowed = []
                for message, author in batch:
                    if self.allowed(author.id):
                        allowed.append((message, author))
                    else:
                        self._unwritten.add(message.id)
                try:
                    await self._write(allowed)
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
        authors: dict[str, User] = {}
        changed: dict[str, dict[str, User]] = {}
        known = self._known
        for message, author in batch:
            authors[author.id] = author
            if known.get((message.guild_id, author.id)) != (author.name, author.display_name, author.is_bot):
                changed.setdefault(message.guild_id, {})[author.id] = author
        done = await record_batch(
            self.store, [m for m, _ in batch], authors, {guild: list(users.values()) for guild, users in changed.items()}
        )
        if len(known) > KNOWN_AUTHORS:
            known.clear()
        for guild_id, users in changed.items():
            for user in users.values():
                if user.id not in done.opted_out:
                    known[(guild_id, user.id)] = (user.name, user.display_name, user.is_bot)
        refused = set(done.refused)
        self._refused |= refused
        unwritten = {m.id for m, a in batch if a.id in done.opted_out}
        self._unwritten |= unwritten
        self.recorded += len(batch) - len(refused) - len(unwritten)
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
                    self._unwritten |= {m.id for m, _ in dropped}
                    emit("ingest", "message_batch_dropped", messages=len(dropped))
                    failures = 0
                await asyncio.sleep(min(1.0, self.tick_seconds * 10))
