"""Reads that must not grow with a guild's history, shown by ArcadeDB's own PROFILE: which index each read
seeks or ranges over, and how many rows reach the step after the match (never a timing)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

import queries
from graph.keys import channel_start, channel_time
from graph.models import Channel, ChannelKind, EpisodeStatus, Guild, Message, User
from graph.privacy.retention import retire_expired
from graph.privacy.user_cap import enforce_user_cap
from graph.reads.activity import day_key, day_of, guild_time, recent_activity
from graph.reads.backlog import episodes_by_status, messages_before
from graph.reads.operator import get_query, run_operator_query
from graph.reads.stats import guild_counts
from graph.schema import setup_schema
from graph.store import GraphStore
from graph.writes.discord_records import upsert_channel, upsert_guild, upsert_users
from graph.writes.episodes import write_command_facts
from graph.writes.messages import record_messages
from tests.support.busy_server import G1, G2, GENERAL, PEOPLE, T0, U, populate

pytestmark = pytest.mark.usefixtures("arcade_only")

G, CH, OTHER_CH = "g-bounded", "c-busy", "c-other"
AUTHOR = User(id="u-1", name="ann", display_name="Ann")
NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def arcade_only(request: pytest.FixtureRequest) -> None:
    if request.node.callspec.params.get("store") != "arcadedb":
        pytest.skip("PROFILE's plan text is ArcadeDB's")


async def _profile(store: GraphStore, name: str, **params: Any) -> tuple[str, list[int]]:
    """The profile text of one query file, and the row counts of the steps after its match."""
    return await profile_text(store, queries.load(name), **params)


async def profile_text(store: GraphStore, statement: str, **params: Any) -> tuple[str, list[int]]:
    _, summary, _ = await store.driver.execute_query("PROFILE " + statement, params, database_=store.engine.database)
    assert summary.profile is not None
    text: str = summary.profile["args"]["string-representation"]
    return text, [int(n.replace(",", "")) for n in re.findall(r"μs, ([\d,]+) rows\)", text)]


def _said(channel: str, word: str, first: datetime, every: timedelta, n: int) -> list[Message]:
    """`n` messages of AUTHOR in `channel`, "<word> <i>" with the id "<word>-<i>", from `first` one `every` apart."""
    return [
        Message(id=f"{word}-{i}", guild_id=G, channel_id=channel, author_id=AUTHOR.id, content=f"{word} {i}",
                created_at=first + every * i)
        for i in range(n)
    ]  # fmt: skip


async def _history(store: GraphStore, old: int, recent: int) -> None:
    """`old` messages of the busy channel 20 to 40 days ago, `recent` in the last half hour, and some of another channel."""
    await upsert_guild(store, Guild(id=G, name="bounded"))
    for cid in (CH, OTHER_CH):
        await upsert_channel(store, Channel(id=cid, guild_id=G, name=cid, kind=ChannelKind.TEXT))
    await upsert_users(store, [AUTHOR], G)
    messages = (
        _said(CH, "old", NOW - timedelta(days=40), timedelta(minutes=1), old)
        + _said(CH, "new", NOW - timedelta(minutes=30), timedelta(minutes=1), recent)
        + _said(OTHER_CH, "else", NOW - timedelta(minutes=10), timedelta(seconds=1), 50)
    )
    assert await record_messages(store, messages) == []


async def test_earlier_messages_are_one_index_range_of_recent_history(store: GraphStore) -> None:
    await _history(store, old=400, recent=15)
    text, rows = await _profile(
        store,
        "store/messages_before",
        from_key=channel_time(CH, NOW - timedelta(hours=1)),
        to_key=channel_time(CH, NOW),
        limit=10,
    )
    assert "NodeIndexRangeScan(m:Message) [index=message_channel_time" in text
    assert "Scan(m:Message) [filter" not in text and "NodeByLabelScan" not in text
    assert rows[0] == 15  # the channel's last hour only: none of its 400 older messages, none of the other channel's

    before = await messages_before(store, CH, NOW, 10)
    assert [m.id for m, _ in before] == [f"new-{i}" for i in range(5, 15)]
    assert {u.id for _, u in before} == {AUTHOR.id}


async def test_earlier_messages_widen_the_span_when_the_last_hour_is_quiet(store: GraphStore) -> None:
    await _history(store, old=30, recent=3)
    before = await messages_before(store, CH, NOW, 10)
    assert [m.id for m, _ in before] == [f"old-{i}" for i in range(23, 30)] + ["new-0", "new-1", "new-2"]
    assert [m.id for m, _ in await messages_before(store, CH, NOW - timedelta(minutes=29), 10)][-1] == "new-0"
    assert await messages_before(store, "c-empty", NOW, 10) == []
    _, rows = await _profile(store, "store/messages_before", from_key=channel_start(CH), to_key=channel_time(CH, NOW), limit=10)
    assert rows[0] == 33  # the whole channel, never another one


async def test_messages_stored_without_the_key_get_it_at_setup(store: GraphStore) -> None:
    await _history(store, old=0, recent=4)
    await store.driver.execute_query("MATCH (m:Message) REMOVE m.channel_time", database_=store.engine.database)
    assert await messages_before(store, CH, NOW, 10) == []
    await setup_schema(store)
    assert [m.id for m, _ in await messages_before(store, CH, NOW, 10)] == [f"new-{i}" for i in range(4)]


async def test_guild_counts_seek_the_guild_never_scan_the_graph(store: GraphStore) -> None:
    await _history(store, old=20, recent=5)
    assert await guild_counts(store, G) == {"facts": 0, "entities": 0, "messages": 75, "episodes": 0}
    assert (await guild_counts(store, "g-nobody"))["messages"] == 0
    statements = queries.statements(queries.load("store/guild_counts"))
    expected = [
        ("f:Fact", "fact_guild"),
        ("e:Entity", "entity_guild"),
        ("m:Message", "message_guild"),
        ("ep:Episode", "episode_guild"),
    ]
    assert len(statements) == len(expected)
    for statement, (label, index) in zip(statements, expected, strict=True):
        text, _ = await profile_text(store, statement, guild_id=G)
        assert f"NodeIndexSeek({label}) [index={index}" in text
        assert "Scan" not in text


async def test_upkeep_retires_through_one_index_range_of_facts_due(store: GraphStore) -> None:
    await populate(store)  # one fact of dave's expires two days in
    later = T0 + timedelta(days=4)

    async def still_due() -> int:  # what the range holds: facts with retire_at set
        found, _, _ = await store.driver.execute_query(
            "MATCH (f:Fact) WHERE f.retire_at IS NOT NULL RETURN count(f) AS n", database_=store.engine.database
        )
        return int(found[0]["n"])

    text, _ = await _profile(
        store, "store/retire_expired", now=later - timedelta(days=30), at=(later - timedelta(days=30)).isoformat()
    )
    assert "NodeIndexRangeScan(f:Fact) [index=fact_retire_at, retire_at <= $now" in text
    assert "Scan(f:Fact) [filter" not in text and "NodeByLabelScan" not in text
    assert await still_due() == 1
    assert await retire_expired(store, later) == 1
    assert await still_due() == 0  # a retired fact leaves the range: later passes never read it again
    assert await retire_expired(store, later + timedelta(days=365)) == 0
    await store.driver.execute_query(
        "MATCH (f:Fact) WHERE f.expires_at IS NOT NULL SET f.expired_at = null", database_=store.engine.database
    )
    await setup_schema(store)  # facts stored before retire_at was kept get it
    assert await still_due() == 1
    assert await retire_expired(store, later) == 1


# --- operator and explorer queries: one guild's records through indexes, never another guild's ------------

BULK = 300  # records of each kind in the busier guild beside: more than any step of a bounded read may see
WHOLE_GRAPH = {
    "explore/guilds": "the guild picker lists every guild",
    "explore/start_points": "members are matched by a name substring: every account is read",
    "explore/search_facts": "a full-text lookup, bounded by $hits",
}


async def _busier_guild_beside(store: GraphStore, author_id: str) -> None:
    """BULK channels, messages (written by a member of both guilds), facts, entities and episodes (extracted:
    its history, not a backlog) in G2."""
    statements = [
        "UNWIND range(1, $n) AS i CREATE (:Channel {id: 'bulk-c' + toString(i), guild_id: $g, name: 'c' + toString(i)})",
        "MATCH (u:User {id: $author}) UNWIND range(1, $n) AS i "
        "CREATE (u)-[:SENT]->(:Message {id: 'bulk-m' + toString(i), guild_id: $g, channel_id: 'bulk-c1', author_id: $author, "
        "content: 'bulk', created_at: datetime('2024-01-01T00:00:00Z')})",
        "UNWIND range(1, $n) AS i CREATE (:Fact {uuid: 'bulk-f' + toString(i), guild_id: $g, text: 'bulk', importance: 1, "
        "valid_at: datetime('2024-01-01T00:00:00Z'), created_at: datetime('2024-01-01T00:00:00Z'), "
        "expired_at: CASE WHEN i % 2 = 0 THEN datetime('2024-05-04T00:00:00Z') END})",
        "UNWIND range(1, $n) AS i CREATE (:Entity {uuid: 'bulk-e' + toString(i), guild_id: $g, name: 'bulk ' + toString(i)})",
        "UNWIND range(1, $n) AS i CREATE (:Episode {key: 'bulk-ep' + toString(i), guild_id: $g, status: 'done', "
        "started_at: datetime('2024-01-01T00:00:00Z'), ended_at: datetime('2024-01-01T00:00:00Z')})",
    ]
    for statement in statements:
        await store.driver.execute_query(statement, {"n": BULK, "g": G2, "author": author_id}, database_=store.engine.database)


def _unbounded(text: str) -> list[str]:
    """What in a profile reads more than one guild's records: a scan, a CALL subquery (planned without
    indexes by ArcadeDB), or a step that passed as many rows as the busier guild holds."""
    found = [m for m in ("NodeByLabelScan", "CALL SUBQUERY") if m in text]
    found += ["Scan(" for _ in re.findall(r"(?<!NodeIndexRange)Scan\(", text)[:1]]  # a range of an index is not a scan
    found += [f"{n} rows" for n in re.findall(r"μs, ([\d,]+) rows", text) if int(n.replace(",", "")) >= BULK]
    return found


async def test_operator_and_explorer_queries_read_one_guild_through_indexes(store: GraphStore) -> None:
    p = await populate(store)
    await _busier_guild_beside(store, PEOPLE["bob"])
    bob, fact = PEOPLE["bob"], p.facts["alice_austin"]
    params: dict[str, Any] = {
        "guild_id": G1,
        "user_id": bob,
        "limit": 10,
        "now": T0 + timedelta(days=1),  # datetimes as the operator runner sends them: native
        "since": T0 - timedelta(days=1),
        "until": None,
        "q": "",
        "query": "austin",
        "hits": 10,
        "topic": "austin",  # who_knows and topic_timeline: a UNION, profiled part by part in tests/graph/reads/test_topic_reads.py
        "channel_id": "",
        "entity_key": "austin",
        "at": None,
    }
    keys = {
        "around_user": bob,
        "member_history": bob,
        "around_fact": fact,
        "fact_history": fact,
        "around_guild": G1,
        "around_channel": GENERAL,
        "around_message": p.messages[0].id,
        "around_episode": p.episodes[0],
        "around_entity": p.entities["austin"],
    }
    found: dict[str, list[str]] = {}
    checked = 0
    for folder in ("operator", "explore"):
        for path in sorted((queries.ROOT / folder).glob("*.cypher")):
            name = f"{folder}/{path.stem}"
            if name in WHOLE_GRAPH:
                continue
            text, _ = await profile_text(
                store,
                path.read_text(encoding="utf-8"),
                **params,
                key=keys.get(path.stem, ""),
                fact_uuid=None,
                mode=None,
                status=None,
                include_closed=None,
            )
            checked += 1
            if _unbounded(text):
                found[name] = _unbounded(text)
    assert checked >= 20
    assert found == {}


async def test_the_guild_overview_counts_each_label_through_its_guild_index(store: GraphStore) -> None:
    await populate(store)
    await _busier_guild_beside(store, PEOPLE["bob"])
    text, _ = await _profile(store, "operator/guild_overview", guild_id=G1, now=None)
    for label, var in (("Channel", "c"), ("Message", "m"), ("Fact", "f"), ("Entity", "e"), ("Episode", "ep")):
        assert f"MATCH NODE ({var}:{label}) [index: {label}[guild_id]]" in text
    counts = await guild_counts(store, G1)
    reads = {
        m[0]: int(m[1])
        for m in re.findall(r"MATCH NODE \(\w+:(\w+)\) \[index: \w+\[guild_id\]\] \([\d,]+μs, ([\d,]+) rows", text)
    }
    assert reads == {
        "Channel": 2,
        "Message": counts["messages"],
        "Fact": counts["facts"],
        "Entity": counts["entities"],
        "Episode": counts["episodes"],
    }


async def test_recent_closings_are_one_range_of_the_expired_at_index(store: GraphStore) -> None:
    await populate(store)
    await _busier_guild_beside(store, PEOPLE["bob"])  # 150 facts of G2 closed on 2024-05-04
    await store.driver.execute_query(  # G1's history: BULK facts closed long ago, and three recent supersessions
        "UNWIND range(1, $n) AS i CREATE (:Fact:Closed {uuid: 'gone-' + toString(i), guild_id: $g, text: 'gone', "
        "importance: 1, valid_at: datetime('2023-01-01T00:00:00Z'), created_at: datetime('2023-01-01T00:00:00Z'), "
        "expired_at: datetime('2023-06-01T00:00:00Z')}) "
        "WITH i WHERE i <= 3 "
        "CREATE (:Fact {uuid: 'new-' + toString(i), guild_id: $g, text: 'new ' + toString(i), importance: 1, "
        "valid_at: datetime('2024-06-01T00:00:00Z'), created_at: datetime('2024-06-01T00:00:00Z')})"
        "-[:SUPERSEDES]->(:Fact:Closed {uuid: 'old-' + toString(i), guild_id: $g, text: 'old ' + toString(i), importance: 1, "
        "valid_at: datetime('2023-01-01T00:00:00Z'), created_at: datetime('2023-01-01T00:00:00Z'), "
        "invalid_at: datetime('2024-06-01T00:00:00Z'), expired_at: datetime('2024-06-01T00:00:00Z')})",
        {"n": BULK, "g": G1},
        database_=store.engine.database,
    )
    since, until = datetime(2024, 5, 20, tzinfo=UTC), datetime(2024, 6, 2, tzinfo=UTC)
    for name in ("operator/superseded_recently", "operator/closed_facts_marked"):
        text, rows = await _profile(store, name, guild_id=G1, since=since, until=until, limit=None)
        assert "NodeIndexRangeScan" in text and "index=fact_expired_at, expired_at >= $since" in text, text
        assert "NodeByLabelScan" not in text and "Scan(f:Fact) [filter" not in text and "MATCH NODE" not in text, text
        assert max(rows) <= 6, text  # the period's three closings (each with its replacement), none of the 300 older
    for name in ("superseded_recently", "closed_facts_marked"):
        got = await run_operator_query(store, get_query(name), {"guild_id": G1, "since": since, "until": until})
        assert len(got) == 3, name
    listed = await run_operator_query(store, get_query("closed_facts_marked"), {"guild_id": G1, "since": since})
    assert sorted(r["mark"]["replaced_by"] for r in listed) == ["new 1", "new 2", "new 3"]


# --- upkeep's per-member fact cap: the new facts' members, never every member's facts -----------------------


async def _facts_about(store: GraphStore, guild_id: str, user_id: str, n: int, created: datetime, tag: str) -> None:
    await store.driver.execute_query(
        "MATCH (u:User {id: $user}) UNWIND range(1, $n) AS i "
        "CREATE (u)<-[:ABOUT]-(:Fact {uuid: $tag + toString(i), guild_id: $g, text: $tag, importance: i % 10, "
        "valid_at: datetime($created), created_at: datetime($created), created_key: $key})",  # as the store writes them
        {
            "user": user_id,
            "n": n,
            "g": guild_id,
            "created": created.isoformat(),
            "tag": tag,
            "key": guild_time(guild_id, created),
        },
        database_=store.engine.database,
    )


async def test_the_fact_cap_reads_only_the_members_given_facts_since_the_last_pass(store: GraphStore) -> None:
    await upsert_guild(store, Guild(id=G, name="bounded"))
    members = [User(id=f"u-cap-{i}", name=f"m{i}", display_name=f"M{i}") for i in range(4)]
    await upsert_users(store, members, G)
    old = NOW - timedelta(days=90)
    for member in members:
        await _facts_about(store, G, member.id, 6, old, f"{member.id}-old-")
    assert await enforce_user_cap(store, 5, now=NOW - timedelta(days=1)) == 4  # the first pass reads everything once
    await _facts_about(store, G, members[0].id, 3, NOW, "fresh-")

    text, rows = await _profile(
        store, "store/user_cap_members", since=NOW - timedelta(minutes=5), until=NOW + timedelta(minutes=5)
    )
    assert "NodeIndexRangeScan(f:Fact) [index=fact_created_at, created_at >= $since" in text, text
    assert "NodeByLabelScan" not in text and "Scan(f:Fact) [filter" not in text
    assert rows[:1] == [3], text  # the three new facts, none of the 24 older ones
    text, rows = await _profile(
        store, "store/enforce_user_cap", members=[{"user_id": members[0].id, "guild_id": G}], cap=5, now=NOW.isoformat()
    )
    assert "Scan" not in text, text  # member 0 through the User.id index, then their own facts
    assert max(rows) <= 9, text  # their 9 facts (6 old, of which 1 capped, and 3 new), never the 27 of the others

    await _facts_about(store, G, members[1].id, 2, NOW, "fresh1-")
    assert await enforce_user_cap(store, 5, now=NOW) == 2  # member 1 only (PROFILE capped member 0: it runs)
    active, _, _ = await store.driver.execute_query(
        "MATCH (u:User)<-[:ABOUT]-(f:Fact) WHERE f.expired_at IS NULL AND f.invalid_at IS NULL "
        "RETURN u.id AS id, count(f) AS n ORDER BY id",
        database_=store.engine.database,
    )
    assert {r["id"]: r["n"] for r in active} == {m.id: 5 for m in members}
    assert await enforce_user_cap(store, 5, now=NOW + timedelta(hours=1)) == 0
    assert await enforce_user_cap(store, 3, now=NOW + timedelta(hours=2)) == 4 * 2  # a lower cap: every member again


# --- `memory status`: the last days' activity through range indexes, never the guild's totals ---------------


async def test_recent_activity_reads_ranges_that_do_not_grow_with_history(store: GraphStore) -> None:
    await _history(store, old=400, recent=15)
    await _facts_about(store, G, AUTHOR.id, 60, NOW - timedelta(days=90), "old-f-")
    await _facts_about(store, G, AUTHOR.id, 4, NOW - timedelta(hours=2), "new-f-")
    await store.driver.execute_query(  # ten of the old facts expire today: upkeep closes them (native $now, :Closed)
        "MATCH (f:Fact) WHERE f.uuid IN [i IN range(1, 10) | 'old-f-' + toString(i)] SET f.retire_at = datetime($at)",
        {"at": (NOW - timedelta(hours=1)).isoformat()},
        database_=store.engine.database,
    )
    assert await retire_expired(store, NOW - timedelta(minutes=30)) == 10
    activity = await recent_activity(store, G, 7, now=NOW)
    assert (activity.messages, activity.channels, activity.learned, activity.closed) == (15 + 50, 2, 4, 10)
    assert activity.per_channel == {CH: 15, OTHER_CH: 50}

    since = NOW - timedelta(days=7)
    text, rows = await _profile(
        store, "store/channel_message_count", from_key=channel_time(CH, since), to_key=channel_time(CH, NOW)
    )
    assert "NodeIndexRangeScan(m:Message) [index=message_channel_time" in text and "Scan(m:Message) [filter" not in text
    assert rows[0] == 15  # none of the channel's 400 older messages
    text, _ = await _profile(store, "store/guild_channels", guild_id=G)
    assert "NodeIndexSeek(c:Channel) [index=channel_guild" in text, text
    learned, closed = queries.statements(queries.load("store/guild_facts_since"))
    for statement, index, seen in (
        (learned, "fact_created_key, created_key >= $from_key", 4),
        (closed, "fact_closed_key, closed_key >= $from_key", 10),
    ):
        text, rows = await profile_text(store, statement, from_key=guild_time(G, since), to_key=guild_time(G, NOW))
        assert f"NodeIndexRangeScan(f:Fact) [index={index}" in text, text
        assert "NodeByLabelScan" not in text and "Scan(f:Fact) [filter" not in text
        assert rows[0] == seen, text  # the last week's, none of the 60 older facts
    other = await recent_activity(store, "g-quiet", 7, now=NOW)  # the keys hold the guild: none of G's is counted
    assert (other.learned, other.closed) == (0, 0)
    today = day_of(NOW)  # what a guild that keeps its days reads instead: one range of their keys, a node per day
    text, rows = await _profile(store, "store/activity_days", from_key=day_key(G, today - 6), to_key=day_key(G, today + 1))
    assert "NodeIndexRangeScan(a:ActivityDay) [index=ActivityDay[key], key >= $from_key" in text, text
    assert "NodeByLabelScan" not in text and "Scan(a:ActivityDay) [filter" not in text, text


async def test_every_write_keeps_the_fact_keys_that_memory_status_reads(store: GraphStore) -> None:
    """created_key and closed_key follow created_at and expired_at on every path that writes them."""
    p = await populate(store)  # episodes' facts and a supersession (write_episode)
    msg = await p.say(GENERAL, "bob", "remember that I like tea", T0 + timedelta(days=1))
    await write_command_facts(store, G1, [p.fact("bob_tea", "Bob likes tea", [U("bob")], msg, importance=1)])
    assert await retire_expired(store, T0 + timedelta(days=4)) == 1
    assert await enforce_user_cap(store, 1, now=T0 + timedelta(days=5)) >= 1

    async def wrong() -> list[str]:
        rows, _, _ = await store.driver.execute_query(
            "MATCH (f:Fact) RETURN f.uuid AS uuid, f.guild_id AS g, f.created_at AS created, f.expired_at AS closed, "
            "f.created_key AS created_key, f.closed_key AS closed_key",
            database_=store.engine.database,
        )
        assert rows
        off = [r["uuid"] for r in rows if r["created_key"] != guild_time(r["g"], r["created"].to_native())]
        return off + [
            r["uuid"]
            for r in rows
            if r["closed_key"] != (guild_time(r["g"], r["closed"].to_native()) if r["closed"] is not None else None)
        ]

    closed, _, _ = await store.driver.execute_query(
        "MATCH (f:Fact) WHERE f.expired_at IS NOT NULL RETURN count(f) AS n", database_=store.engine.database
    )
    assert closed[0]["n"] >= 3  # superseded, retired and capped
    assert await wrong() == []
    await store.driver.execute_query("MATCH (f:Fact) REMOVE f.created_key, f.closed_key", database_=store.engine.database)
    assert await wrong() != []
    await setup_schema(store)  # facts stored before the keys were kept get them
    assert await wrong() == []


async def test_windows_waiting_are_read_through_the_status_index_not_the_guilds_history(store: GraphStore) -> None:
    await populate(store)
    await _busier_guild_beside(store, PEOPLE["bob"])  # 300 done episodes of G2
    await store.driver.execute_query(  # and as many done in G1: its history
        "UNWIND range(1, $n) AS i CREATE (:Episode {key: 'done-ep' + toString(i), guild_id: $g, status: 'done', "
        "started_at: datetime('2024-01-01T00:00:00Z'), ended_at: datetime('2024-01-01T00:00:00Z')})",
        {"n": BULK, "g": G1},
        database_=store.engine.database,
    )
    await store.driver.execute_query(  # a backlog: two waiting, one failed
        "UNWIND ['pending', 'pending', 'failed'] AS status WITH status, toString(rand()) AS k "
        "CREATE (:Episode {key: 'wait-' + k, uuid: k, channel_id: $c, guild_id: $g, status: status, started_at: datetime('2024-06-01T00:00:00Z'), ended_at: datetime('2024-06-01T00:00:00Z')})",
        {"g": G1, "c": GENERAL},
        database_=store.engine.database,
    )
    waiting = await episodes_by_status(store, [EpisodeStatus.PENDING, EpisodeStatus.FAILED], guild_id=G1)
    assert len(waiting) >= 3
    text, rows = await _profile(store, "operator/windows_by_status", guild_id=G1, status=None)
    assert "NodeIndexSeek(ep:Episode) [index=episode_status, status=IN ['pending', 'failed', $status]" in text, text
    assert "Scan" not in text and 3 <= max(rows, default=0) <= len(waiting), text  # the backlog, none of the 600 done
    for guild in (G1, None):  # memory status's backlog of one guild, and the upkeep's of every guild
        text, rows = await _profile(store, "store/episodes_by_status", statuses=["pending", "failed"], guild_id=guild, limit=1000)
        assert "NodeIndexSeek(e:Episode) [index=episode_status" in text, text
        assert "Scan" not in text and max(rows, default=0) <= len(waiting), text
    listed = await run_operator_query(store, get_query("windows_by_status"), {"guild_id": G1})
    assert sorted(r["key"] for r in listed) == sorted(e.key for e in waiting) and listed
    done = await run_operator_query(store, get_query("windows_by_status"), {"guild_id": G1, "status": "done"})
    assert {r["status"] for r in done} == {"done"} and len(done) > BULK  # asked for: the history, this guild's only
