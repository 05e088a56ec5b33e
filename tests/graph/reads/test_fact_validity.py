"""One rule of when a fact holds (graph/models.py `holds`), read the same by every read of "held" and "current":
the timeline (the CLI's, the bot's `/memory timeline`, MCP's `facts` and `timeline`), `grapevine facts`, the reply
context's facts and the explorer's drawing. A plan ("Alice is leading a hike on Saturday") held until its expiry,
counted from when it held; after that it is not current, whether or not upkeep has retired it since. On the real
engine."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grapevine.explore.elements import node_element
from graph.models import EpisodeWrite, holds
from graph.reads import topics
from graph.reads.facts import facts_about, facts_history
from graph.store import GraphStore
from graph.writes.episodes import write_episode
from tests.support.busy_server import G1, GENERAL, PEOPLE, U, in_general

SATURDAY = datetime(2024, 5, 4, 9, 0, tzinfo=UTC)


async def _nobody(ids: set[str]) -> set[str]:
    return set()


async def _timeline(store: GraphStore, *, at: datetime | None = None, now: datetime | None = None) -> dict[str, bool]:
    found = await topics.timeline(store, G1, user_id=PEOPLE["alice"], at=at, now=now, channel_id=None, opted_out=_nobody)
    return {f.text: f.held for f in found}


async def _stored_fact(store: GraphStore, text: str) -> dict[str, object]:
    found = await store.driver.execute_query(
        "MATCH (f:Fact {text: $text}) RETURN f AS f", text=text, database_=store.engine.database
    )
    node = found.records[0]["f"]
    return {"_id": node.element_id, "_labels": list(node.labels), **{k: _text(v) for k, v in dict(node).items()}}


def _text(value: object) -> object:
    iso = getattr(value, "iso_format", None)
    return iso() if callable(iso) else value


async def test_an_expired_plan_holds_neither_then_nor_now(store: GraphStore) -> None:
    p = await in_general(store, "alice", "bob")
    said = await p.say(GENERAL, "alice", "I'm leading a hike on Saturday, who's in?", SATURDAY - timedelta(days=3))
    key = await p.episode(GENERAL, [said])
    hike = p.fact("hike", "Alice is leading a hike on Saturday", [U("alice")], said, valid_at=SATURDAY,
                  expires_at=SATURDAY + timedelta(days=1))  # fmt: skip
    lives = p.fact("lives", "Alice lives in Leeds", [U("alice")], said)
    await write_episode(store, EpisodeWrite(key=key, guild_id=G1, summary="a hike", facts=(hike, lives)))

    assert await _timeline(store, at=datetime(2024, 6, 1, tzinfo=UTC)) == {hike.text: False, lives.text: True}
    assert await _timeline(store) == {hike.text: False, lives.text: True}  # plain `timeline`: today
    assert await _timeline(store, at=SATURDAY + timedelta(hours=2)) == {hike.text: True, lives.text: True}
    current = await facts_history(store, G1, user_ids=[PEOPLE["alice"]])  # `grapevine facts`
    assert [f.text for f in current] == [lives.text]
    assert [f.text for f in await facts_about(store, G1, user_ids=[PEOPLE["alice"]])] == [lives.text]  # the reply's
    assert "Closed" in node_element(await _stored_fact(store, hike.text))["labels"]  # the explorer draws it closed
    assert "Closed" not in node_element(await _stored_fact(store, lives.text))["labels"]


_keys = itertools.count()
DAY = timedelta(days=1)
offsets = st.none() | st.integers(min_value=-40, max_value=40)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True, database=None)
@given(
    valid=st.integers(min_value=-40, max_value=40),
    ends=st.tuples(offsets, offsets, offsets),
    days=st.lists(st.integers(min_value=-60, max_value=60), min_size=1, max_size=4),
)
async def test_every_read_of_held_follows_one_rule(
    store: GraphStore, valid: int, ends: tuple[int | None, int | None, int | None], days: list[int]
) -> None:
    """For any fact (begun, ended, expired, closed at any days) and any dates d: the timeline as of d and the
    timeline, `grapevine facts` and the reply's facts when now is d agree with `holds`, for every fact begun by d
    (a plan not begun yet is current too, where "now" lists it); and a fact that stopped holding never holds again
    later."""
    p = await in_general(store, "alice")
    p.next_id += 1000 * next(_keys)  # each example its own message and episode
    await store.driver.execute_query("MATCH (f:Fact) DETACH DELETE f", database_=store.engine.database)
    said = await p.say(GENERAL, "alice", "news", SATURDAY - 60 * DAY)
    key = await p.episode(GENERAL, [said])
    valid_at = SATURDAY + valid * DAY
    invalid_at, expires_at, expired_at = (None if e is None else valid_at + e * DAY for e in ends)
    fact = p.fact(f"fact {key}", "Alice has news", [U("alice")], said, valid_at=valid_at, expires_at=expires_at)
    await write_episode(store, EpisodeWrite(key=key, guild_id=G1, summary="news", facts=(fact,)))
    await store.driver.execute_query(
        "MATCH (f:Fact {uuid: $uuid}) SET f.invalid_at = $invalid_at, f.expired_at = $expired_at",
        uuid=fact.uuid, invalid_at=invalid_at, expired_at=expired_at, database_=store.engine.database,
    )  # fmt: skip
    for d in sorted(SATURDAY + n * DAY for n in days):
        rule = holds(valid_at, invalid_at, expires_at, expired_at, d)
        current = not (invalid_at and invalid_at <= d or expires_at and expires_at <= d or expired_at and expired_at <= d)
        as_of = await _timeline(store, at=d)
        assert as_of == ({fact.text: rule} if valid_at <= d else {}), d
        assert await _timeline(store, now=d) == {fact.text: current}, d
        if valid_at <= d:
            assert current == rule  # the timeline as of d and the timeline when now is d agree
        listed = [f.text for f in await facts_history(store, G1, user_ids=[PEOPLE["alice"]], now=d)]
        assert listed == ([fact.text] if current else []), d
        then = [f.text for f in await facts_history(store, G1, user_ids=[PEOPLE["alice"]], at=d)]
        assert then == ([fact.text] if rule else []), d
        replied = [f.text for f in await facts_about(store, G1, user_ids=[PEOPLE["alice"]], now=d)]
        assert replied == listed, d
    later = [holds(valid_at, invalid_at, expires_at, expired_at, SATURDAY + n * DAY) for n in range(-60, 61)]
    begun = later[later.index(True) :] if True in later else []
    assert begun == sorted(begun, reverse=True), "a fact held again after it stopped"
