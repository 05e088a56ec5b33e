"""Who-knows and a topic's timeline on bench.scale's generated guild, timed beside the reply's reads.

bench.scale calls `measure_topic_reads` after its per-read breakdown: each ask runs as the bot runs it
(graph/reads/topics.py, with the opt-out read), from one of the guild's channels, for a topic that is an entity's name
(a rare word) or one of the words every generated message is made of (common: a fifth of the messages hold
each), so the full-text indexes see both kinds. Each timing goes into the same table as the reply's reads.
"""

from __future__ import annotations

import random
import time
from datetime import datetime
from typing import Any

from bench.cpu import CpuClock
from graph.privacy.guards.consent import keyed
from graph.privacy.opted_out import opted_out_reader
from graph.reads import topics
from graph.store import GraphStore

COMMON = ("server", "game", "trip", "music")  # words of bench.scale's _WORDS: each in about 20% of the messages


async def measure_topic_reads(store: GraphStore, guild_id: str, g: Any, figures: Any, count: int, rng: random.Random) -> None:
    """Time `count` who-knows asks and as many timelines into `figures.reads` / `figures.reads_cpu` (bench.scale's)."""
    opted_out = opted_out_reader(store, keyed(store))
    channels = [c["id"] for c in g.channels]
    now = datetime.fromisoformat(g.messages[-1]["created_at"])  # the generated guild's present: its last message
    asks = [
        (rng.choice(channels), rng.choice(g.entities)["name"] if i % 2 else rng.choice(COMMON), rng.choice(g.users)["id"])
        for i in range(count)
    ]

    async def who_knows(ask: tuple[str, str, str]) -> None:
        channel, topic, _ = ask
        await topics.who_knows(store, guild_id, topic, channel_id=channel, opted_out=opted_out, now=now, limit=5)

    async def timeline(ask: tuple[str, str, str]) -> None:
        channel, _, user = ask
        await topics.timeline(store, guild_id, user_id=user, channel_id=channel, opted_out=opted_out)

    for name, read in (
        ("who-knows (a topic; half entity names, half common words)", who_knows),
        ("timeline (a member)", timeline),
    ):
        for ask in asks[:5]:
            await read(ask)
        times = []
        clock = CpuClock(figures.engine_pid)
        for ask in asks:
            started = time.perf_counter()
            await read(ask)
            times.append((time.perf_counter() - started) * 1000)
        figures.reads[name] = times
        figures.reads_cpu[name] = clock.per_op(len(asks))
