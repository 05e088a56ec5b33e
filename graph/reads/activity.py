"""A guild's recent activity for `memory status`: what it recorded and learned in the last days, read
through range indexes, so its cost follows recent traffic, never the guild's history. (Exact totals over
a guild's history cost a read of every record: the operator's `guild_overview` query gives them.)

Facts carry two string keys, `created_key` and `closed_key` = '<guild id>|<10^15 + epoch millis>' of
created_at and expired_at (set where a fact is written or closed, and at setup for older facts): a range
of one guild's period is one range of a string index. ArcadeDB's range over a datetime index costs about a
read of the whole index whatever it holds (an empty 7-day range of created_at: 47 ms CPU at 30,000 facts,
against 1.6 ms for the string key), so the datetime indexes do not bound this."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

import queries
from common.clock import now_utc
from graph.keys import channel_time
from graph.models import utc
from graph.session import Tx, run, run_text
from graph.store import GraphStore


@dataclass(frozen=True)
class Activity:
    days: int
    messages: int  # recorded in the span
    channels: int  # of them with at least one message
    learned: int  # facts stored in the span
    closed: int  # facts superseded, expired or capped in the span
    per_channel: dict[str, int] = field(default_factory=dict)  # messages in the span, by channel id


def guild_time(guild_id: str, at: datetime) -> str:
    """The created_key / closed_key of a fact of `guild_id` stored or closed at `at` (channel_time's format)."""
    return channel_time(guild_id, at)


async def recent_activity(store: GraphStore, guild_id: str, days: int = 7, now: datetime | None = None) -> Activity:
    """What the guild recorded and learned in the last `days`: messages per channel through channel_time ranges,
    facts through created_key and closed_key ranges."""
    now = utc(now or now_utc())
    since = now - timedelta(days=days)

    async def work(tx: Tx) -> Activity:
        per_channel: dict[str, int] = {}
        for row in await run(tx, "store/guild_channels", guild_id=guild_id):
            channel = str(row["id"])
            found = await run(
                tx, "store/channel_message_count", from_key=channel_time(channel, since), to_key=channel_time(channel, now)
            )
            per_channel[channel] = int(found[0]["count"]) if found else 0  # ArcadeDB: no row when the range is empty
        facts = {"learned": 0, "closed": 0}
        for statement in queries.statements(queries.load("store/guild_facts_since")):
            for row in await run_text(tx, statement, from_key=guild_time(guild_id, since), to_key=guild_time(guild_id, now)):
                facts[str(row["kind"])] = int(row["count"])
        messages, active = sum(per_channel.values()), sum(1 for n in per_channel.values() if n)
        return Activity(days, messages, active, facts["learned"], facts["closed"], per_channel)

    return await store.runner.read_tx(work)
