"""A guild's recent activity for `memory status`: what it recorded and learned in the last days, read from the
guild's days (ActivityDay nodes: each channel's messages of a UTC day, the guild's facts stored and closed that day),
kept as the writes happen on the counted statements' path (graph/counts.py), so the read is a node per channel and
day whatever the guild's traffic. The last `days` days are today (UTC) and the days before it. A guild whose days
are not kept yet (a store made before they were, a guild node made again) is recounted first, as its totals are;
one with no guild node (nothing stored of it) is read through the range indexes instead.

Facts carry two string keys, `created_key` and `closed_key` = '<guild id>|<10^15 + epoch millis>' of
created_at and expired_at (set where a fact is written or closed, and at setup for older facts): a range
of one guild's period is one range of a string index. ArcadeDB's range over a datetime index costs about a
read of the whole index whatever it holds (an empty 7-day range of created_at: 47 ms CPU at 30,000 facts,
against 1.6 ms for the string key), so the datetime indexes do not bound this."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import queries
from common.clock import now_utc
from graph.counts import kept
from graph.keys import channel_time
from graph.models import utc
from graph.reads.stats import guild_totals
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


def day_of(at: datetime) -> int:
    """The UTC day of `at`, in days since 1970: an ActivityDay's day (queries/store/move_counts_messages.cypher)."""
    return (utc(at) - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(days=1)


def day_key(guild_id: str, day: int) -> str:
    """The lowest ActivityDay key of the guild's `day`: '<guild id>|<day>' (then '|<channel id>')."""
    return f"{guild_id}|{day}"


async def recent_activity(store: GraphStore, guild_id: str, days: int = 7, now: datetime | None = None) -> Activity:
    """What the guild recorded and learned in its last `days` days (today, UTC, and the days before): its channels
    and the days it keeps, in one read transaction."""
    now = utc(now or now_utc())
    [row] = await store.runner.read_plain("store/kept_counts", guild_id=guild_id)
    if row.get("guild_id") is None:
        return await _ranges(store, guild_id, days, now)
    if kept(row) is None:
        await guild_totals(store, guild_id)  # recounted and kept from here on, its days with them
    today = day_of(now)

    async def work(tx: Tx) -> Activity:
        per_channel = {str(r["id"]): 0 for r in await run(tx, "store/guild_channels", guild_id=guild_id)}
        facts = {"learned": 0, "closed": 0}
        found = await run(
            tx, "store/activity_days", from_key=day_key(guild_id, today - days + 1), to_key=day_key(guild_id, today + 1)
        )
        for day in found:
            if day["channel_id"]:
                per_channel[str(day["channel_id"])] = per_channel.get(str(day["channel_id"]), 0) + int(day["messages"] or 0)
            for kind in facts:
                facts[kind] += int(day[kind] or 0)
        messages, active = sum(per_channel.values()), sum(1 for n in per_channel.values() if n)
        return Activity(days, messages, active, facts["learned"], facts["closed"], per_channel)

    return await store.runner.read_tx(work)


async def _ranges(store: GraphStore, guild_id: str, days: int, now: datetime) -> Activity:
    """`recent_activity` of a guild with no node to keep its days on: messages per channel through channel_time
    ranges, facts through created_key and closed_key ranges, from the start of the first of the `days` days."""
    since = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(days=day_of(now) - days + 1)
    until = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(days=day_of(now) + 1)  # all of today, as a kept day holds

    async def work(tx: Tx) -> Activity:
        per_channel: dict[str, int] = {}
        for row in await run(tx, "store/guild_channels", guild_id=guild_id):
            channel = str(row["id"])
            found = await run(
                tx, "store/channel_message_count", from_key=channel_time(channel, since), to_key=channel_time(channel, until)
            )
            per_channel[channel] = int(found[0]["count"]) if found else 0  # ArcadeDB: no row when the range is empty
        facts = {"learned": 0, "closed": 0}
        for statement in queries.statements(queries.load("store/guild_facts_since")):
            for row in await run_text(tx, statement, from_key=guild_time(guild_id, since), to_key=guild_time(guild_id, until)):
                facts[str(row["kind"])] = int(row["count"])
        messages, active = sum(per_channel.values()), sum(1 for n in per_channel.values() if n)
        return Activity(days, messages, active, facts["learned"], facts["closed"], per_channel)

    return await store.runner.read_tx(work)
