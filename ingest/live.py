"""The live window buffer: every message is stored as it arrives, buffered per channel, and closed
windows go to the ingestor in the background. After a restart the open windows are rebuilt from
the stored messages that no episode holds yet, and close as usual."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Callable
from datetime import datetime

from common.clock import now_utc
from common.events import emit
from common.settings import WindowSettings
from graph.models import Message, User
from graph.privacy.erasure import apply_edit, erase_messages
from graph.privacy.guards.consent import Consent
from graph.reads.backlog import buffered_messages
from graph.store import GraphStore
from graph.writes.discord_records import upsert_users
from graph.writes.messages import record_messages
from ingest.ingestor import Ingestor
from ingest.recording import MessageRecorder
from ingest.windows import ClosedWindow, WindowBuffer, WindowMessage


class LiveWindows:
    def __init__(
        self,
        store: GraphStore,
        ingestor: Ingestor,
        consent: Consent,
        settings: WindowSettings,
        *,
        clock: Callable[[], datetime] = now_utc,
        retry_seconds: float = 30.0,
        recorder: MessageRecorder | None = None,
    ) -> None:
        self.store = store
        self.ingestor = ingestor
        self.consent = consent
        self.buffer = WindowBuffer(settings)
        self.clock = clock
        self.retry_seconds = retry_seconds
        self._wake = asyncio.Event()
        self._loop: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[object]] = set()
        self._unsubmitted: list[ClosedWindow] = []  # closed but not yet stored as episodes (graph down)
        self._ticking: asyncio.Task[None] | None = None  # the ingestor's timer work (batches due by age)
        # with a recorder, messages are written in batches (ingest/recording.py) instead of one by one
        self.recorder = recorder
        if recorder is not None:
            recorder.on_refused = lambda message: self.buffer.delete(message.id)
            recorder.allowed = consent.allowed

    async def start(self) -> int:
        """Rebuild the open windows from stored, unclosed messages; start the timer loop."""
        restored = 0
        for message, author in await buffered_messages(self.store):
            if not self.consent.allowed(author.id):
                continue
            # as replay does: what was due by this message's time closes first, so stored
            # conversations of one channel separated by a quiet gap stay separate windows
            self._dispatch(self.buffer.due(message.created_at))
            self._dispatch(self.buffer.add(WindowMessage(message, author), message.created_at))
            restored += 1
        self._dispatch(self.buffer.due(self.clock()))
        self._loop = asyncio.create_task(self._run(), name="grapevine-windows")
        if self.recorder is not None:
            self.recorder.start()
        emit("ingest", "windows_restored", messages=restored, open=self.buffer.open_windows())
        return restored

    async def stop(self) -> None:
        """Stop timers; open windows stay stored as buffered messages and come back on restart."""
        if self._loop:
            self._loop.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._loop
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        if self.recorder is not None:
            await self.recorder.stop()  # what was handed over is written before the bot goes

    async def on_message(self, message: Message, author: User) -> bool:
        """Store and buffer one message; False when its author opted out (nothing stored) or its id is
        stored for a message of another guild, channel or author (refused)."""
        if not self.consent.allowed(author.id):
            return False
        if self.recorder is not None:
            self.recorder.add(message, author)  # written at the next tick; the event handler never waits for it
        else:
            if not await self._record_now(message, author):
                return False
        closed = self.buffer.add(WindowMessage(message, author), self.clock())
        emit(
            "ingest",
            "message_buffered",
            guild_id=message.guild_id,
            channel_id=message.channel_id,
            message_id=message.id,
            content=message.content,
            buffered=self.buffer.buffered(),
        )
        self._dispatch(closed)
        self._wake.set()
        return True

    async def _record_now(self, message: Message, author: User) -> bool:
        """Without a recorder: store the message before buffering it; False when its id is refused."""
        try:
            await upsert_users(self.store, [author], message.guild_id)
            if await record_messages(self.store, [message]):
                emit("ingest", "message_id_refused", message_id=message.id, guild_id=message.guild_id)
                return False
        except Exception as exc:  # noqa: BLE001 - kept in the buffer; stored again when its window closes
            emit("ingest", "message_store_failed", message_id=message.id, error=type(exc).__name__)
        return True

    async def on_edit(self, message_id: str, content: str, edited_at: datetime) -> None:
        """The new text everywhere it waits; in the graph, nothing kept of the old one (graph/privacy/erasure.py), and the
        new text extracted in the background when its episode was already extracted."""
        await self._flush_recorder()  # the message itself may still be waiting for its tick
        self.buffer.edit(message_id, content, edited_at)
        self._unsubmitted = [_edited(w, message_id, content, edited_at) for w in self._unsubmitted]
        await apply_edit(self.store, message_id, content, edited_at)
        task = asyncio.create_task(self._reextract())  # when its episode was extracted (ingest/extraction/reextraction.py)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _reextract(self) -> None:
        try:
            await self.ingestor.reextract_edited()
        except Exception as exc:  # noqa: BLE001 - the edited messages wait in the graph; the backlog retries
            emit("ingest", "reextraction_parked", error=type(exc).__name__, reason=str(exc)[:300])

    async def on_delete(self, message_id: str) -> None:
        """Out of every window, and out of the graph with what was drawn only from it (graph/privacy/erasure.py)."""
        await self._flush_recorder()
        self.buffer.delete(message_id)
        self._unsubmitted = [k for w in self._unsubmitted if (k := _without(w, message_id)) is not None]
        await erase_messages(self.store, [message_id])

    def drop_user(self, user_id: str, guild_id: str | None = None) -> int:
        """Forget-me: remove the user's messages (of one guild, or all) from open windows and windows waiting
        to be stored. In one guild, what the recorder holds stays: `flush` it before forgetting."""
        dropped = self.buffer.drop_user(user_id, guild_id)
        if self.recorder is not None and guild_id is None:
            self.recorder.drop_user(user_id)  # counted once: the buffer holds the same messages
        elif self.recorder is not None:
            self.recorder.forget_author(user_id)  # their node or membership may be gone: upserted again if they return
        kept = []
        for window in self._unsubmitted:
            if guild_id is not None and window.guild_id != guild_id:
                kept.append(window)
                continue
            messages = tuple(wm for wm in window.messages if wm.author.id != user_id)
            dropped += len(window.messages) - len(messages)
            if messages:
                kept.append(
                    ClosedWindow(
                        window.channel_id,
                        window.guild_id,
                        messages,
                        tuple(wm for wm in window.context if wm.author.id != user_id),
                        window.reason,
                    )
                )
        self._unsubmitted = kept
        return dropped

    async def flush(self) -> None:
        """Write what the recorder holds now (a forget in one guild runs after it: nothing of the member lands later)."""
        await self._flush_recorder()

    def stats(self) -> dict[str, int]:
        return {
            "open_windows": self.buffer.open_windows(),
            "buffered_messages": self.buffer.buffered(),
            "unsubmitted_windows": len(self._unsubmitted),
        }

    async def tick(self) -> None:
        """Close what is due now and retry windows the graph refused earlier."""
        self._dispatch(self.buffer.due(self.clock()))
        retry, self._unsubmitted = self._unsubmitted, []
        self._dispatch(retry)
        self._tick_ingestor()

    async def drain(self) -> None:
        """Write what the recorder holds; wait for every submitted window to finish (tests, shutdown)."""
        await self._flush_recorder()
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def _dispatch(self, windows: list[ClosedWindow]) -> None:
        for window in windows:
            task = asyncio.create_task(self._submit(window))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def _tick_ingestor(self) -> None:
        """Queued windows due by age are extracted in the background, one timer run at a time."""
        if self._ticking is None or self._ticking.done():
            self._ticking = asyncio.create_task(self._ingestor_tick())
            self._tasks.add(self._ticking)
            self._ticking.add_done_callback(self._tasks.discard)

    async def _ingestor_tick(self) -> None:
        try:
            await self.ingestor.tick()
        except Exception as exc:  # noqa: BLE001 - the windows stay queued in the graph; the next tick retries
            emit("ingest", "batch_tick_failed", error=type(exc).__name__, reason=str(exc)[:300])

    async def _flush_recorder(self) -> None:
        if self.recorder is not None:
            await self.recorder.flush()

    async def _submit(self, window: ClosedWindow) -> None:
        try:
            kept_window = await self._without_opted_out(window)
            if kept_window is None:
                return
            window = kept_window
            await self._flush_recorder()  # every message handed over is written before its window goes on
            refused = await self._record_window(window)
            if refused:  # ids another guild, channel or author holds: never part of this window's episode
                kept = tuple(wm for wm in window.messages if wm.message.id not in refused)
                if not kept:
                    return
                window = dataclasses.replace(window, messages=kept)
            await self.ingestor.submit(window)
        except Exception as exc:  # noqa: BLE001 - the window must not be lost whatever failed
            self._unsubmitted.append(window)
            emit("ingest", "window_parked", key=window.key, error=type(exc).__name__, reason=str(exc)[:300])

    async def _record_window(self, window: ClosedWindow) -> set[str]:
        """The window's messages in the graph; the refused ids among them. What the recorder wrote (all of a
        window, but for a batch it dropped or a member it held back) is not written a second time."""
        ids = [wm.message.id for wm in window.messages]
        if self.recorder is not None:
            unwritten, refused = self.recorder.unsettled(ids)
            if not unwritten:
                self.recorder.release(ids)
                return refused
        await upsert_users(self.store, list({wm.author.id: wm.author for wm in window.messages}.values()), window.guild_id)
        refused = set(await record_messages(self.store, [wm.message for wm in window.messages]))
        if self.recorder is not None:
            self.recorder.release(ids)
        return refused

    async def _without_opted_out(self, window: ClosedWindow) -> ClosedWindow | None:
        """The window without the messages of members opted out now, in the store (one indexed read of its
        authors): an opt-out by another process (the CLI) keeps their buffered messages out of the graph
        and the prompt, without a restart. None when nothing else remains."""
        authors = {wm.author.id for wm in (*window.messages, *window.context)}
        out = await self.consent.refresh_among(authors)
        if not out:
            return window
        dropped = sum(1 for wm in window.messages if wm.author.id in out)
        if self.recorder is not None:
            for user_id in out:
                self.recorder.drop_user(user_id)
        messages = tuple(wm for wm in window.messages if wm.author.id not in out)
        emit("ingest", "opted_out_dropped", key=window.key, dropped=dropped)
        if not messages:
            return None
        context = tuple(wm for wm in window.context if wm.author.id not in out)
        return dataclasses.replace(window, messages=messages, context=context)

    async def _run(self) -> None:
        last_retry = last_tick = self.clock()
        while True:
            deadline = self.buffer.next_deadline()
            now = self.clock()
            timeout = self.retry_seconds if deadline is None else max(0.0, (deadline - now).total_seconds())
            self._wake.clear()
            # asyncio.timeout, not wait_for: on 3.11 wait_for swallows a cancel that lands just as the
            # wake-up fires, and then stop() waits forever on a loop that goes on closing windows.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(min(timeout, self.retry_seconds)):
                    await self._wake.wait()
            self._dispatch(self.buffer.due(self.clock()))
            if (self.clock() - last_tick).total_seconds() >= self.retry_seconds:  # not on every message's wake-up
                last_tick = self.clock()
                self._tick_ingestor()
            if self._unsubmitted and (self.clock() - last_retry).total_seconds() >= self.retry_seconds:
                last_retry = self.clock()
                retry, self._unsubmitted = self._unsubmitted, []
                self._dispatch(retry)


def _without(window: ClosedWindow, message_id: str) -> ClosedWindow | None:
    """A window waiting for the graph, without a deleted message (None when nothing else remains)."""
    messages = tuple(wm for wm in window.messages if wm.message.id != message_id)
    context = tuple(wm for wm in window.context if wm.message.id != message_id)
    return dataclasses.replace(window, messages=messages, context=context) if messages else None


def _edited(window: ClosedWindow, message_id: str, content: str, edited_at: datetime) -> ClosedWindow:
    def apply(items: tuple[WindowMessage, ...]) -> tuple[WindowMessage, ...]:
        return tuple(
            WindowMessage(wm.message.model_copy(update={"content": content, "edited_at": edited_at}), wm.author)
            if wm.message.id == message_id
            else wm
            for wm in items
        )

    return dataclasses.replace(window, messages=apply(window.messages), context=apply(window.context))
