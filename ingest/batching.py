"""When closed windows are extracted: the batch rule, a pure policy over the queue of one guild.

Closed windows of a guild wait (stored as pending episodes, so the queue survives a restart) and
are extracted together in one LLM call. Walking the queue oldest first, a batch takes windows until
they hold `batch_messages` messages; a window that would take the batch past `batch_tokens` prompt
tokens, or past `MAX_WINDOWS` windows, starts the next one. A full batch goes at once; the last,
unfilled one goes when its oldest message is `batch_age_seconds` old, so no message waits longer
than that for its facts. A window that failed before is not queued: it is retried on its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from common.settings import ExtractionSettings
from common.tokens import estimate_tokens

MAX_WINDOWS = 20  # windows in one call (the answer schema's bound)
MESSAGE_LINE_TOKENS = 12  # a message line's ref, time stamp and author, beside its text
SECTION_TOKENS = 40  # a window's heading, section titles and participant lines, about


@dataclass(frozen=True)
class Queued:
    """A closed window waiting for extraction."""

    key: str
    started_at: datetime  # its first message
    messages: int
    tokens: int  # estimated prompt tokens of its messages


def window_tokens(texts: Sequence[str]) -> int:
    return sum(estimate_tokens(t) + MESSAGE_LINE_TOKENS for t in texts)


def queued_tokens(texts: Sequence[str], context_messages: int) -> int:
    """A window's share of a batch prompt, estimated: its messages, its section titles and participants,
    and its earlier messages (counted as messages of its own mean size)."""
    own = window_tokens(texts)
    return SECTION_TOKENS + own + context_messages * own // max(1, len(texts))


def batches(queue: Sequence[Queued], settings: ExtractionSettings, now: datetime) -> list[list[Queued]]:
    """The batches to extract now, oldest first; windows not in them keep waiting."""
    out: list[list[Queued]] = []
    current: list[Queued] = []
    for window in sorted(queue, key=lambda q: q.started_at):
        if current and (sum(q.tokens for q in current) + window.tokens > settings.batch_tokens or len(current) >= MAX_WINDOWS):
            out.append(current)
            current = []
        current.append(window)
        if sum(q.messages for q in current) >= settings.batch_messages:
            out.append(current)
            current = []
    if current and (
        sum(q.tokens for q in current) >= settings.batch_tokens
        or now - current[0].started_at >= timedelta(seconds=settings.batch_age_seconds)
    ):
        out.append(current)
    return out
