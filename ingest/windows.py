"""Conversation windows: each channel's messages are buffered until the conversation pauses.

A channel's open window closes after `quiet_seconds` without a new message, at `max_messages`,
or `max_age_seconds` after it opened, whichever comes first; a global cap on buffered messages
closes the oldest windows first. Each closed window is one extraction call. The buffer is pure:
no clock, no I/O; every time-dependent call takes an explicit `now` (aware UTC).

A closed window also carries `context`: the last `context_messages` messages of the same channel
from earlier windows, already extracted, so that a reply crossing a window boundary is still seen
together with its parent by one call.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
from collections import deque
from collections.abc import Callable, MutableSequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from common.settings import WindowSettings
from graph.models import Message, User

REASONS = ("quiet", "max_messages", "max_age", "buffer_cap", "shutdown")


@dataclass(frozen=True)
class WindowMessage:
    message: Message
    author: User


@dataclass(frozen=True)
class ClosedWindow:
    channel_id: str
    guild_id: str
    messages: tuple[WindowMessage, ...]  # time order, never empty
    context: tuple[WindowMessage, ...]  # earlier messages of the channel, already processed
    reason: str

    @property
    def key(self) -> str:
        """Stable episode key: the same messages always give the same key."""
        return f"{self.channel_id}:{self.messages[0].message.id}:{self.messages[-1].message.id}"

    @property
    def started_at(self) -> datetime:
        return self.messages[0].message.created_at

    @property
    def ended_at(self) -> datetime:
        return self.messages[-1].message.created_at

    @property
    def message_ids(self) -> tuple[str, ...]:
        return tuple(wm.message.id for wm in self.messages)

    @property
    def participant_ids(self) -> tuple[str, ...]:
        """Distinct author ids in order of first message (context authors not included)."""
        return tuple(dict.fromkeys(wm.message.author_id for wm in self.messages))


@dataclass
class _Open:
    channel_id: str
    guild_id: str
    seq: int  # identifies this window (a channel's next window gets a new one)
    opened_at: datetime
    last_at: datetime
    items: list[WindowMessage]
    version: int = 0  # bumped on every add; stale deadline entries are skipped


def _created(wm: WindowMessage) -> datetime:
    return wm.message.created_at


class WindowBuffer:
    """Open windows of every channel, plus each channel's carried-over context."""

    def __init__(self, settings: WindowSettings) -> None:
        self._max_messages = settings.max_messages
        self._cap = settings.buffer_max_messages
        self._context_size = settings.context_messages
        self._quiet = timedelta(seconds=settings.quiet_seconds)
        self._max_age = timedelta(seconds=settings.max_age_seconds)
        self._open: dict[str, _Open] = {}  # channel id -> its open window
        self._where: dict[str, str] = {}  # buffered message id -> channel id
        self._context: dict[str, deque[WindowMessage]] = {}  # channel id -> last closed messages
        self._deadlines: list[tuple[datetime, int, int, str]] = []  # (at, seq, version, channel)
        self._seq = itertools.count()
        self._count = 0

    # -- feeding -------------------------------------------------------------------------------
    def add(self, wm: WindowMessage, now: datetime) -> list[ClosedWindow]:
        """Buffer a message; returns the windows this closes (max_messages, buffer_cap)."""
        msg = wm.message
        if msg.id in self._where:  # redelivered: keep the first copy
            return []
        win = self._open.get(msg.channel_id)
        if win is None:
            win = _Open(msg.channel_id, msg.guild_id, next(self._seq), now, now, [])
            self._open[msg.channel_id] = win
        if not win.items or _created(win.items[-1]) <= msg.created_at:
            win.items.append(wm)
        else:  # a late message goes where it belongs in time
            win.items.insert(bisect.bisect_right(win.items, msg.created_at, key=_created), wm)
        win.last_at = max(win.last_at, now)
        win.version += 1
        self._where[msg.id] = msg.channel_id
        self._count += 1
        heapq.heappush(self._deadlines, (self._deadline(win)[0], win.seq, win.version, win.channel_id))
        closed: list[ClosedWindow] = []
        if len(win.items) >= self._max_messages:
            closed.append(self._close(win.channel_id, "max_messages"))
        while self._count > self._cap:
            oldest = min(self._open.values(), key=lambda w: (w.opened_at, w.seq))
            closed.append(self._close(oldest.channel_id, "buffer_cap"))
        return closed

    def due(self, now: datetime) -> list[ClosedWindow]:
        """Close every window whose quiet time or maximum age has passed, soonest first."""
        closed: list[ClosedWindow] = []
        while self._deadlines and self._deadlines[0][0] <= now:
            _, seq, version, channel_id = heapq.heappop(self._deadlines)
            win = self._open.get(channel_id)
            if win is not None and win.seq == seq and win.version == version:
                closed.append(self._close(channel_id, self._deadline(win)[1]))
        return closed

    def next_deadline(self) -> datetime | None:
        """When the soonest open window closes by itself (None when nothing is open)."""
        while self._deadlines:
            _, seq, version, channel_id = self._deadlines[0]
            win = self._open.get(channel_id)
            if win is not None and win.seq == seq and win.version == version:
                return self._deadlines[0][0]
            heapq.heappop(self._deadlines)
        return None

    # -- changes to messages -------------------------------------------------------------------
    def edit(self, message_id: str, content: str, edited_at: datetime) -> bool:
        """Apply an edit. True when the message waits in an open window (the store has not seen
        it yet); a copy kept as carried-over context is updated too, but returns False."""
        update = {"content": content, "edited_at": edited_at}
        for items in self._holders(message_id):
            for i, wm in enumerate(items):
                if wm.message.id == message_id:
                    items[i] = WindowMessage(wm.message.model_copy(update=update), wm.author)
        return message_id in self._where

    def delete(self, message_id: str) -> bool:
        """Forget a deleted message. True when it was in an open window; a window emptied by
        deletions disappears without closing. Carried-over context copies are removed too."""
        buffered = message_id in self._where
        self._remove(lambda wm: wm.message.id == message_id)
        return buffered

    def drop_user(self, user_id: str, guild_id: str | None = None) -> int:
        """Forget-me: remove a user's messages (of one guild, or all) from open windows and carried-over
        context. Returns how many buffered (open-window) messages were dropped."""
        return self._remove(lambda wm: wm.message.author_id == user_id and guild_id in (None, wm.message.guild_id))

    # -- shutdown and introspection ------------------------------------------------------------
    def close_all(self, reason: str = "shutdown") -> list[ClosedWindow]:
        """Close every open window, oldest first."""
        order = sorted(self._open.values(), key=lambda w: (w.opened_at, w.seq))
        return [self._close(win.channel_id, reason) for win in order]

    def open_windows(self) -> int:
        return len(self._open)

    def buffered(self) -> int:
        return self._count

    # -- internals -----------------------------------------------------------------------------
    def _deadline(self, win: _Open) -> tuple[datetime, str]:
        quiet_at, age_at = win.last_at + self._quiet, win.opened_at + self._max_age
        return (quiet_at, "quiet") if quiet_at <= age_at else (age_at, "max_age")

    def _holders(self, message_id: str) -> list[MutableSequence[WindowMessage]]:
        holders: list[MutableSequence[WindowMessage]] = []
        if message_id in self._where:
            holders.append(self._open[self._where[message_id]].items)
        holders.extend(ctx for ctx in self._context.values() if any(wm.message.id == message_id for wm in ctx))
        return holders

    def _remove(self, drop: Callable[[WindowMessage], bool]) -> int:
        removed = 0
        for channel_id in list(self._open):
            win = self._open[channel_id]
            keep = [wm for wm in win.items if not drop(wm)]
            if len(keep) == len(win.items):
                continue
            for wm in win.items:
                if drop(wm):
                    del self._where[wm.message.id]
            removed += len(win.items) - len(keep)
            win.items = keep
            if not keep:
                del self._open[channel_id]  # its deadline entries are now stale
        self._count -= removed
        for channel_id, ctx in self._context.items():
            if any(drop(wm) for wm in ctx):
                self._context[channel_id] = deque((wm for wm in ctx if not drop(wm)), maxlen=ctx.maxlen)
        return removed

    def _close(self, channel_id: str, reason: str) -> ClosedWindow:
        if reason not in REASONS:
            raise ValueError(f"unknown close reason {reason!r}; expected one of {REASONS}")
        win = self._open.pop(channel_id)
        for wm in win.items:
            del self._where[wm.message.id]
        self._count -= len(win.items)
        ctx = self._context.get(channel_id)
        closed = ClosedWindow(channel_id, win.guild_id, tuple(win.items), tuple(ctx or ()), reason)
        if self._context_size:
            if ctx is None:
                ctx = self._context[channel_id] = deque(maxlen=self._context_size)
            ctx.extend(win.items)
        return closed
