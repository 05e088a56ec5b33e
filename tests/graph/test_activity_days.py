"""Each guild's days (ActivityDay: a channel's messages of a UTC day, the guild's facts stored and closed that day,
graph/counts.py), what `memory status` reads for its last days: after each way facts close (an end passed, a cap,
a supersession), a forget, retention and the backfill of a store made before them, they equal a recount through the
guild_id indexes, and recent_activity reads them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from graph import counts
from graph.models import Channel, ChannelKind, FactWrite, Guild, Message, NodeRef, User
from graph.privacy.forget import forget_user
from graph.privacy.retention import apply_retention, retire_expired
from graph.privacy.user_cap import enforce_user_cap
from graph.reads.activity import recent_activity
from graph.reads.stats import backfill, guild_totals
from graph.store import GraphStore
from graph.writes.discord_records import upsert_channel, upsert_guild
from graph.writes.episodes import write_command_facts
from graph.writes.messages import record_batch

G, CH, OTHER = "810000000000000001", "811000000000000001", "811000000000000002"
ANN, BOB = "830000000000000001", "830000000000000002"
T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


async def _days_are_a_recount(store: GraphStore) -> dict[tuple[int, str], dict[str, int]]:
    kept = await store.runner.read_tx(lambda tx: counts.kept_days(tx, G))
    assert kept == await store.runner.read_tx(lambda tx: counts.recount_days(tx, G))
    return kept


async def _guild(store: GraphStore) -> None:
    await upsert_guild(store, Guild(id=G, name="g"))
    for channel in (CH, OTHER):
        await upsert_channel(store, Channel(id=channel, guild_id=G, name=channel, kind=ChannelKind.TEXT))
    await guild_totals(store, G)  # kept from here on


async def _say(store: GraphStore, who: str, channel: str, at: datetime, n: int, first: int) -> None:
    user = User(id=who, name=f"m{who[-1]}", display_name=f"m{who[-1]}")
    batch = [Message(id=str(840000000000000000 + first + i), guild_id=G, channel_id=channel, author_id=who,
                     content=f"hello {i}", created_at=at + timedelta(minutes=i)) for i in range(n)]  # fmt: skip
    await record_batch(store, batch, {who: user}, {G: [user]})


def _fact(uuid: int, who: str, at: datetime, *, ends: datetime | None = None, supersedes: tuple[str, ...] = ()) -> FactWrite:
    return FactWrite(uuid=f"00000000-0000-0000-0000-{uuid:012d}", text=f"fact {uuid}", valid_at=at, expires_at=ends,
                     about=(NodeRef(kind="user", id=who),), reports=(), supersedes=supersedes)  # fmt: skip


async def test_the_days_follow_every_write_and_closing_and_status_reads_them(store: GraphStore) -> None:
    await _guild(store)
    await _say(store, ANN, CH, T0 - timedelta(days=10), 3, 0)  # an old day
    await _say(store, ANN, CH, T0 - timedelta(days=1), 4, 10)
    await _say(store, BOB, OTHER, T0, 2, 20)
    await _days_are_a_recount(store)
    await write_command_facts(store, G, [_fact(1, ANN, T0, ends=T0 + timedelta(hours=1)), _fact(2, ANN, T0), _fact(3, BOB, T0)])
    await write_command_facts(store, G, [_fact(4, ANN, T0 + timedelta(minutes=5), supersedes=(_fact(2, ANN, T0).uuid,))])
    days = await _days_are_a_recount(store)
    assert sum(d["closed"] for d in days.values()) == 1  # the supersession
    assert await retire_expired(store, T0 + timedelta(days=1)) == 1
    await write_command_facts(store, G, [_fact(5, ANN, T0 + timedelta(minutes=9))])
    assert await enforce_user_cap(store, 1) == 1  # Ann's two current facts, one over the cap
    days = await _days_are_a_recount(store)
    assert sum(d["closed"] for d in days.values()) == 3 and sum(d["learned"] for d in days.values()) == 5

    activity = await recent_activity(store, G, 7, now=T0 + timedelta(days=2))
    assert (activity.messages, activity.channels, activity.per_channel) == (4 + 2, 2, {CH: 4, OTHER: 2})
    today = await recent_activity(store, G, 1)  # the facts were stored (and the supersession closed one) today
    assert (today.messages, today.learned) == (0, 5) and today.closed >= 2

    await forget_user(store, BOB, thorough_audit=False)
    await _days_are_a_recount(store)
    await apply_retention(store, messages_days=5, closed_facts_days=1, now=T0 + timedelta(days=3))
    await _days_are_a_recount(store)
    activity = await recent_activity(store, G, 7, now=T0 + timedelta(days=3))
    assert (activity.messages, activity.per_channel) == (4, {CH: 4, OTHER: 0})


async def test_a_store_made_before_the_days_gets_them_at_its_backfill(store: GraphStore) -> None:
    await _guild(store)
    await _say(store, ANN, CH, T0, 3, 0)
    await write_command_facts(store, G, [_fact(1, ANN, T0)])
    await store.driver.execute_query(  # as a store written before the days were kept
        "MATCH (a:ActivityDay) DETACH DELETE a WITH count(*) AS gone MATCH (g:Guild) REMOVE g.activity_kept",
        database_=store.engine.database,
    )
    assert await backfill(store) == 1
    days = await _days_are_a_recount(store)
    assert sum(d["messages"] for d in days.values()) == 3 and sum(d["learned"] for d in days.values()) == 1
    assert (await recent_activity(store, G, 7, now=T0)).messages == 3
