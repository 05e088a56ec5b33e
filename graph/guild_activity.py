"""A guild's recent activity for `memory status`: what it recorded and learned in the last days, read
through range indexes, so its cost follows recent traffic, never the guild's history. (Exact totals over
a guild's history cost a read of every record: the operator's `guild_overview` query gives them.)"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

import queries
from graph.keys import channel_time
from graph.models import utc
from graph.session import Runner, Tx, run, run_text


@dataclass(frozen=True)
class Activity:
    days: int
    messages: int  # recorded in the span
    channels: int  # of them with at least one message
    learned: int  # facts stored in the span
    closed: int  # facts superseded, expired or capped in the span
    per_channel: dict[str, int] = field(default_factory=dict)  # messages in the span, by channel id


async def recent_activity(runner: Runner, guild_id: str, now: datetime, days: int) -> Activity:
    """Messages per channel through channel_time ranges, facts through created_at and expired_at ranges."""
    now = utc(now)
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
            for row in await run_text(tx, statement, since=since, until=now, guild_id=guild_id):
                facts[str(row["kind"])] = int(row["count"])
        messages, active = sum(per_channel.values()), sum(1 for n in per_channel.values() if n)
        return Activity(days, messages, active, facts["learned"], facts["closed"], per_channel)

    return await runner.read_tx(work)
