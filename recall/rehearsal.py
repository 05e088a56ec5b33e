"""The reply reads, rehearsed when the bot starts.

A restarted engine runs the reply reads interpreted until its JIT compiles them: the first few hundred replies
take two to three times the CPU of later ones, so without this members would meet the slow regime first.
At start the bot builds reply contexts for requests made of its channels' own latest messages, in the background,
one at a time and at most `duty` of the time (the rest is left to live traffic), until `seconds` have passed. It
only reads: nothing is written, kept or logged but counts.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from datetime import datetime

from common.settings import ContextSettings, RecallTuning
from graph.reads.backlog import messages_before, some_channels
from graph.store import GraphStore
from recall.assemble import ContextRequest
from recall.gather import GraphUnavailable, build_context

CHANNELS = 20  # channels whose latest messages make the rehearsal's requests
PER_CHANNEL = 15


@dataclass(frozen=True)
class Rehearsal:
    builds: int
    seconds: float
    requests: int


async def rehearsal_requests(store: GraphStore, at: datetime) -> list[ContextRequest]:
    """Requests as members would send them: the latest messages of up to CHANNELS channels (bounded reads: a
    few channels, then each one's last messages through its time index), each asked again at `at`."""
    requests: list[ContextRequest] = []
    for guild_id, channel_id in await some_channels(store, CHANNELS):
        for message, author in await messages_before(store, channel_id, at, PER_CHANNEL):
            if message.content.strip() and not author.is_bot:
                requests.append(
                    ContextRequest(
                        guild_id=guild_id,
                        channel_id=channel_id,
                        author_id=author.id,
                        message_text=message.content,
                        message_id=message.id,
                        at=at,
                        reply_to_id=message.reply_to_id,
                    )
                )
    return requests


async def rehearse(
    store: GraphStore,
    settings: ContextSettings,
    requests: list[ContextRequest],
    *,
    seconds: float,
    duty: float = 0.5,
    tuning: RecallTuning = RecallTuning(),
) -> Rehearsal:
    """Build the contexts of `requests` in turn for `seconds`, building at most `duty` of the time."""
    started = time.monotonic()
    builds = 0
    while requests and time.monotonic() - started < seconds:
        began = time.perf_counter()
        try:
            await build_context(store, requests[builds % len(requests)], settings, tuning=tuning)
        except GraphUnavailable:
            break
        builds += 1
        spent = time.perf_counter() - began
        await asyncio.sleep(spent * (1 - duty) / duty)
    return Rehearsal(builds=builds, seconds=time.monotonic() - started, requests=len(requests))


async def rehearse_at_start(
    store: GraphStore, settings: ContextSettings, at: datetime, *, tuning: RecallTuning = RecallTuning()
) -> Rehearsal:
    """What the bot runs as it starts: its channels' latest messages asked again, for `settings.rehearsal_seconds`."""
    if settings.rehearsal_seconds <= 0:
        return Rehearsal(builds=0, seconds=0.0, requests=0)
    requests = await rehearsal_requests(store, at)
    return await rehearse(store, settings, requests, seconds=settings.rehearsal_seconds, tuning=tuning)
