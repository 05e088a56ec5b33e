"""The same conversations at a slower pace, and when their windows are extracted.

`stretch` spreads a sample's timestamps by a factor (pace 4: every gap four times longer, the same
messages and replies), the way a quieter community would say them. `schedule` replays a sample as
the live bot would: windows close (`ingest.replay`), then go to extraction either at once
(unbatched) or through the batch rule (`ingest.extraction.batch_rule`), and records which windows share a call
and when each call is made, so a message's extraction delay is that call's time minus its own.
The delay leaves out the LLM's own latency and the bot's 30 s timer step.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from common.settings import ExtractionSettings, WindowSettings
from common.tokens import estimate_tokens
from ingest.extraction.batch_prompt import BATCH_NOTE
from ingest.extraction.batch_rule import SECTION_TOKENS, Queued, age_limit, batches, queued, window_tokens
from ingest.extraction.window_prompt import SYSTEM
from ingest.replay import replay
from ingest.windows import ClosedWindow, WindowMessage
from tests.support.datasets import IrcSample

PACES = (1, 2, 4, 8, 16)


def stretch(sample: IrcSample, pace: float) -> IrcSample:
    """The sample with every gap between messages `pace` times longer (pace 1: as it was)."""
    if pace == 1 or not sample.messages:
        return sample
    t0 = sample.messages[0].message.created_at
    messages = [
        WindowMessage(wm.message.model_copy(update={"created_at": t0 + (wm.message.created_at - t0) * pace}), wm.author)
        for wm in sample.messages
    ]
    return IrcSample(sample.name, messages, sample.reply_links)


def closed_at(window: ClosedWindow, settings: WindowSettings) -> datetime:
    """When the live buffer closed the window: at its last message (size, cap), after the quiet time, or at its age."""
    if window.reason == "quiet":
        return window.ended_at + timedelta(seconds=settings.quiet_seconds)
    if window.reason == "max_age":
        return window.started_at + timedelta(seconds=settings.max_age_seconds)
    return window.ended_at


@dataclass
class Schedule:
    """The extraction calls of one sample: each a list of windows, sent at a time."""

    calls: list[tuple[datetime, list[ClosedWindow]]] = field(default_factory=list)

    def delays(self) -> list[float]:
        """Seconds from each message to the call that extracts it."""
        return [(at - wm.message.created_at).total_seconds() for at, ws in self.calls for w in ws for wm in w.messages]


def schedule(
    sample: IrcSample, windows: WindowSettings, batching: ExtractionSettings | None
) -> tuple[list[ClosedWindow], Schedule]:
    """The sample's closed windows, and its calls: one per window at its close (`batching` None), or
    batched as the bot's queue would send them (one guild, `batching`'s size and age rule)."""
    closed = list(replay(sample.messages, windows))
    out = Schedule()
    if batching is None:
        out.calls = [(closed_at(w, windows), [w]) for w in closed]
        return closed, out
    by_key = {w.key: w for w in closed}
    queue: list[Queued] = []
    recent: list[tuple[datetime, datetime, int]] = []  # the windows queued so far: the guild's pace

    def fire(now: datetime) -> None:
        for batch in batches(queue, batching, now, age_limit(recent, batching)):
            out.calls.append((now, [by_key[q.key] for q in batch]))
            sent = {q.key for q in batch}
            queue[:] = [q for q in queue if q.key not in sent]

    def deadline() -> datetime:
        return min(q.started_at for q in queue) + age_limit(recent, batching)

    for window in sorted(closed, key=lambda w: closed_at(w, windows)):
        at = closed_at(window, windows)
        while queue and deadline() <= at:  # the timer: due by age before this close
            fire(deadline())
        texts = [wm.message.content for wm in window.messages]
        queue.append(queued(window.key, window.channel_id, window.started_at, texts, windows.context_messages))
        recent.append((window.started_at, window.ended_at, len(texts)))
        del recent[: -batching.batch_messages]  # as the ingestor keeps them
        fire(at)
    while queue:
        fire(deadline())
    return closed, out


def prompt_tokens(call: Sequence[ClosedWindow]) -> int:
    """An estimate of one call's prompt: the instructions (once per call), and each window's messages and
    earlier messages with its section titles (known facts and entities left out: they depend on the graph);
    an earlier message another window of the call shows already is not repeated (`ingest.extraction.batch_prompt`)."""
    total = estimate_tokens(SYSTEM) + (estimate_tokens(BATCH_NOTE) if len(call) > 1 else 0)
    shown: set[str] = set()
    for w in call:
        lines = [wm for wm in (*w.context, *w.messages) if wm.message.id not in shown]
        total += SECTION_TOKENS + window_tokens([wm.message.content for wm in lines])
        shown.update(wm.message.id for wm in lines)
    return total


def percentile(values: Sequence[float], share: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]
