"""When closed windows are extracted: the batch rule, a pure policy over the queue of one guild.

Closed windows of a guild wait (stored as pending episodes, so the queue survives a restart) and
are extracted together in one LLM call. Walking the queue oldest first, a batch takes windows until
they hold `batch_messages` messages; a window that would take the batch past `batch_tokens` prompt
tokens, or past `MAX_WINDOWS` windows, starts the next one. A full batch goes at once; the last,
unfilled one goes when its oldest message is as old as the guild's age limit (`age_limit`), so no
message waits longer than that for its facts. A window that failed before is not queued: it is
retried on its own.

The age limit follows the guild's own pace: a quiet guild's windows are small and its batch fills
slowly, so a fixed age would send it half empty (many calls for few messages). It waits up to twice
the time the guild's latest windows took to hold `batch_messages` messages, at least
`batch_age_seconds` and at most `batch_age_max_seconds`; until the guild has said that many, the
least. The reply path covers the wait: it reads the channel's raw messages, extracted or not.

A batch prompt shows a window's earlier messages only once (`ingest.extraction.batch_prompt`): a window whose
channel has a window before it in the batch needs none of its own, as that window's messages and
earlier messages are the ones just before it. The token estimate counts them the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from common.settings import ExtractionSettings
from common.tokens import estimate_tokens

# windows in one call (the answer schema's bound): a quiet guild's windows hold a message or two, and a default
# batch of one-message windows must still be one call
MAX_WINDOWS = 30
MESSAGE_LINE_TOKENS = 12  # a message line's ref, time stamp and author, beside its text
SECTION_TOKENS = 40  # a window's heading, section titles and participant lines, about
PACE_MARGIN = 2  # an unfilled batch waits up to this many times the guild's recent time for a full one


@dataclass(frozen=True)
class Queued:
    """A closed window waiting for extraction."""

    key: str
    started_at: datetime  # its first message
    messages: int
    tokens: int  # estimated prompt tokens of its section and messages
    channel_id: str = ""
    earlier_tokens: int = 0  # estimated prompt tokens of its earlier messages, when the batch must show them


def window_tokens(texts: Sequence[str]) -> int:
    return sum(estimate_tokens(t) + MESSAGE_LINE_TOKENS for t in texts)


def queued(key: str, channel_id: str, started_at: datetime, texts: Sequence[str], context_messages: int) -> Queued:
    """A window's share of a batch prompt, estimated: its messages with its section titles and participants,
    and apart, its earlier messages (counted as messages of its own mean size)."""
    own = window_tokens(texts)
    return Queued(key, started_at, len(texts), SECTION_TOKENS + own, channel_id, context_messages * own // max(1, len(texts)))


def batch_tokens(batch: Iterable[Queued]) -> int:
    """A batch's estimated prompt tokens: each window's section and messages, and the earlier messages of the
    first window of each channel only (the batch shows the others' already)."""
    channels: set[str] = set()
    total = 0
    for q in batch:
        total += q.tokens + (0 if q.channel_id and q.channel_id in channels else q.earlier_tokens)
        channels.add(q.channel_id)
    return total


def age_limit(recent: Iterable[tuple[datetime, datetime, int]], settings: ExtractionSettings) -> timedelta:
    """How long a guild's unfilled batch may wait, from its latest closed windows (first message, last message,
    messages): PACE_MARGIN times the time they took to hold `batch_messages` messages, within
    `batch_age_seconds` and `batch_age_max_seconds` (the least while they hold fewer)."""
    least = settings.batch_age_seconds
    most = max(least, settings.batch_age_max_seconds)
    held = 0
    newest: datetime | None = None
    for started, ended, messages in sorted(recent, key=lambda w: w[1], reverse=True):
        newest = newest or ended
        held += messages
        if held >= settings.batch_messages:
            took = (newest - started).total_seconds()
            return timedelta(seconds=min(most, max(least, PACE_MARGIN * took)))
    return timedelta(seconds=least)


def batches(
    queue: Sequence[Queued], settings: ExtractionSettings, now: datetime, age: timedelta | None = None
) -> list[list[Queued]]:
    """The batches to extract now, oldest first; windows not in them keep waiting. An unfilled batch goes once
    its oldest message is `age` old (the guild's `age_limit`; `batch_age_seconds` when not given)."""
    limit = age if age is not None else timedelta(seconds=settings.batch_age_seconds)
    out: list[list[Queued]] = []
    current: list[Queued] = []
    for window in sorted(queue, key=lambda q: q.started_at):
        if current and (batch_tokens([*current, window]) > settings.batch_tokens or len(current) >= MAX_WINDOWS):
            out.append(current)
            current = []
        current.append(window)
        if sum(q.messages for q in current) >= settings.batch_messages:
            out.append(current)
            current = []
    if current and (batch_tokens(current) >= settings.batch_tokens or now - current[0].started_at >= limit):
        out.append(current)
    return out
