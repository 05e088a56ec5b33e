"""Who knows about a topic, and a topic's timeline: the operator queries `who_knows` and `topic_timeline`
(queries/operator/), read for members, operators and assistants alike, part by part (`parts`).

Every read runs in a READ session whose transaction is rolled back (`graph.reads.operator.read_rolled_back`),
on whichever store the caller holds: the bot's, or the engine's reader (`graph.store.reader`) for operators. Channel
scope is the reply context's (queries/context/facts.cypher): `channel_id` None reads every channel (operators),
'' only what the guild's shared channels hold, a channel id what may be recalled there.
"""

from __future__ import annotations

import asyncio
import functools
import math
import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, NamedTuple

import queries
from common.clock import now_utc
from common.links import jump_url
from common.text import lucene_all, name_key
from graph.models import utc
from graph.privacy.guards.consent import OptedOut
from graph.reads.operator import read_rolled_back
from graph.store import GraphStore

HALF_LIFE = timedelta(days=90)  # what a member said this long ago counts half as much as what they said today
FACT_WEIGHT = 3.0  # a fact a member reported counts as three messages: it is what extraction kept of a talk
MESSAGE_WEIGHT = 1.0
HITS = 200  # matches read from each full-text index (who_knows.cypher)
TIMELINE_FACTS = 100


@dataclass
class Knower:
    """A member who knows about a topic: what they reported and said of it, and one message to open."""

    user_id: str
    name: str
    facts: int = 0
    messages: int = 0
    last: datetime | None = None
    score: float = 0.0
    example: tuple[str, str] | None = None  # (channel id, message id) of their best piece of evidence
    _seen: set[tuple[str, str]] = field(default_factory=set, repr=False)


class Related(NamedTuple):
    """A fact on the other side of a supersession."""

    uuid: str
    text: str


class Reporter(NamedTuple):
    user_id: str
    name: str
    at: datetime | None
    message_id: str | None


class Source(NamedTuple):
    message_id: str
    channel_id: str


@dataclass(frozen=True)
class TimelineFact:
    uuid: str
    text: str
    valid_at: datetime | None
    invalid_at: datetime | None
    expired_at: datetime | None
    expires_at: datetime | None
    held: bool  # whether it held at the time asked about (now, by default)
    supersedes: tuple[Related, ...]  # the facts it closed
    superseded_by: tuple[Related, ...]
    reporters: tuple[Reporter, ...]  # earliest first
    sources: tuple[Source, ...]  # those the asking channel may show


@functools.cache
def parts(name: str) -> tuple[str, ...]:
    """The UNION parts of an operator query, each a statement of its own: ArcadeDB plans a UNION without the
    indexes each part seeks on its own (tests/graph/reads/test_topic_reads.py profiles the parts)."""
    code = "\n".join(line for line in queries.load(name).splitlines() if not line.startswith("//"))
    return tuple(part.strip() for part in re.split(r"^UNION$", code, flags=re.M))


async def _read_parts(store: GraphStore, name: str, params: dict[str, Any], which: Iterable[int]) -> list[dict[str, Any]]:
    """The rows of the chosen parts of an operator query, read concurrently, in rolled-back READ sessions."""
    found = await asyncio.gather(*(read_rolled_back(store, parts(name)[i], params) for i in which))
    return [row for rows in found for row in rows]


def topic_query(topic: str) -> str:
    """A full-text query holding every word of the topic, each escaped (common.text.lucene_all)."""
    return lucene_all(topic, 8)


def score(at: datetime | None, weight: float, now: datetime) -> float:
    """How much one piece of evidence counts: its weight, halved for every HALF_LIFE of age."""
    if at is None:
        return weight / 2
    age = max((now - at).total_seconds(), 0.0)
    return weight * math.pow(0.5, age / HALF_LIFE.total_seconds())


def rank_knowers(rows: Iterable[dict[str, Any]], now: datetime, left_out: Collection[str] = ()) -> list[Knower]:
    """Members by how much and how recently they spoke of the topic (the sum of `score` over their facts and
    messages, each counted once), without `left_out`. A member's example is their highest-scoring evidence
    that has a message."""
    found: dict[str, Knower] = {}
    best: dict[str, float] = {}
    for row in rows:
        user_id = str(row["user_id"])
        if user_id in left_out:
            continue
        kind, ref = str(row["kind"]), str(row["ref"])
        knower = found.setdefault(user_id, Knower(user_id, str(row.get("member") or user_id)))
        if (kind, ref) in knower._seen:
            continue
        knower._seen.add((kind, ref))
        at = _time(row.get("at"))
        value = score(at, FACT_WEIGHT if kind == "fact" else MESSAGE_WEIGHT, now)
        knower.score += value
        if kind == "fact":
            knower.facts += 1
        else:
            knower.messages += 1
        if at is not None and (knower.last is None or at > knower.last):
            knower.last = at
        if row.get("message_id") and row.get("channel_id") and value > best.get(user_id, -1.0):
            best[user_id] = value
            knower.example = (str(row["channel_id"]), str(row["message_id"]))
    return sorted(found.values(), key=lambda k: (-k.score, -(k.last.timestamp() if k.last else 0.0), k.name, k.user_id))


async def who_knows(
    store: GraphStore,
    guild_id: str,
    topic: str,
    *,
    channel_id: str | None,
    opted_out: OptedOut,
    now: datetime,
    limit: int = 10,
    hits: int = HITS,
) -> list[Knower]:
    """The members who know about `topic` in `guild_id`, best first, at most `limit`: from what may be recalled
    in `channel_id` (module docstring), without the opted-out."""
    query = topic_query(topic)
    if not query:
        return []
    params = {"guild_id": guild_id, "topic": query, "channel_id": channel_id, "hits": hits}
    rows = await _read_parts(store, "operator/who_knows", params, range(3))
    out = await opted_out({str(r["user_id"]) for r in rows})
    return rank_knowers(rows, utc(now), out)[:limit]


async def timeline(
    store: GraphStore,
    guild_id: str,
    *,
    user_id: str | None = None,
    entity_name: str | None = None,
    at: datetime | None = None,
    channel_id: str | None,
    opted_out: OptedOut,
    limit: int = TIMELINE_FACTS,
    now: datetime | None = None,
) -> list[TimelineFact]:
    """The facts about a member (`user_id`) or an entity (by name), oldest valid_at first, as of `at` (None: `now`),
    from what may be recalled in `channel_id`; an opted-out member is invisible: nothing about them by id, and
    left out of the reporters."""
    if user_id and await opted_out({user_id}):
        user_id = None
    key = name_key(entity_name) if entity_name else None
    if not user_id and not key:
        return []
    params = {
        "guild_id": guild_id,
        "user_id": user_id,
        "entity_key": key,
        "at": utc(at) if at else None,
        "now": utc(now or now_utc()),
    }
    which = [i for i, wanted in enumerate((user_id, key)) if wanted]  # the member's part, the entity's
    rows = await _read_parts(store, "operator/topic_timeline", params | {"channel_id": channel_id, "limit": limit}, which)
    out = await opted_out({str(r["id"]) for row in rows for r in row["reporters"]})
    facts = {row["uuid"]: _timeline_fact(row, out) for row in rows}  # a fact about both subjects comes twice
    ordered = sorted(facts.values(), key=lambda f: (f.valid_at is None, f.valid_at or datetime.max, f.uuid))
    return ordered[-limit:]


def _timeline_fact(row: dict[str, Any], out: set[str]) -> TimelineFact:
    reporters = [
        Reporter(str(r["id"]), str(r["name"] or r["id"]), _time(r["at"]), r["message_id"] or None)
        for r in row["reporters"]
        if str(r["id"]) not in out
    ]
    reporters.sort(key=lambda r: (r.at is None, r.at or datetime.max, r.user_id))
    return TimelineFact(
        uuid=row["uuid"],
        text=row["text"],
        valid_at=_time(row["valid_at"]),
        invalid_at=_time(row["invalid_at"]),
        expired_at=_time(row["expired_at"]),
        expires_at=_time(row["expires_at"]),
        held=bool(row["held"]),
        supersedes=tuple(Related(str(r["uuid"]), str(r["text"])) for r in row["supersedes"]),
        superseded_by=tuple(Related(str(r["uuid"]), str(r["text"])) for r in row["superseded_by"]),
        reporters=tuple(reporters),
        sources=tuple(Source(str(s["message_id"]), str(s["channel_id"])) for s in row["sources"]),
    )


def _time(value: Any) -> datetime | None:
    """A time of a row as `read_rolled_back` gives it (ISO text, `graph.reads.operator.plain`), or a native one."""
    if value is None:
        return None
    return utc(datetime.fromisoformat(value) if isinstance(value, str) else value)


def knower_record(knower: Knower, guild_id: str, rank: int) -> dict[str, Any]:
    """A who-knows row as operators and assistants read it (JSON-friendly)."""
    channel_id, message_id = knower.example or (None, None)
    return {
        "rank": rank,
        "member": knower.name,
        "user_id": knower.user_id,
        "facts": knower.facts,
        "messages": knower.messages,
        "last": knower.last.isoformat() if knower.last else None,
        "score": round(knower.score, 3),
        "example": jump_url(guild_id, channel_id, message_id),
    }


def timeline_record(fact: TimelineFact, guild_id: str) -> dict[str, Any]:
    """A timeline row as operators and assistants read it (JSON-friendly)."""
    return {
        "valid_at": fact.valid_at.isoformat() if fact.valid_at else None,
        "text": fact.text,
        "held": fact.held,
        "invalid_at": fact.invalid_at.isoformat() if fact.invalid_at else None,
        "reported_by": [
            {"user_id": r.user_id, "member": r.name, "at": r.at.isoformat() if r.at else None} for r in fact.reporters
        ],
        "supersedes": [r.text for r in fact.supersedes],
        "superseded_by": [r.text for r in fact.superseded_by],
        "links": [url for s in fact.sources if (url := jump_url(guild_id, s.channel_id, s.message_id))],
        "uuid": fact.uuid,
    }


@dataclass(frozen=True)
class Named:
    """What a name given by an operator or an assistant stands for: a member (`user_id`) or an entity (`entity`)."""

    name: str
    user_id: str | None = None
    entity: str | None = None


async def resolve(store: GraphStore, guild_id: str, text: str) -> Named | None:
    """A Discord user id, an entity's name, or a member's name in `guild_id` (an entity first: a topic is more
    often a thing than a person), read in rolled-back READ sessions."""
    text = text.strip().lstrip("@")
    if text.isdigit():
        return Named(text, user_id=text)
    key = name_key(text)
    if key:
        found = await read_rolled_back(store, queries.load("store/entities_by_keys"), {"guild_id": guild_id, "keys": [key]})
        if found:
            return Named(str(found[0]["name"]), entity=str(found[0]["name"]))
    members = await read_rolled_back(
        store, queries.load("store/members_by_name"), {"guild_id": guild_id, "names": [text.casefold()], "limit": 2}
    )
    members = [m for m in members if not m.get("is_bot")]
    if len(members) == 1:
        return Named(str(members[0]["display_name"] or members[0]["name"]), user_id=str(members[0]["id"]))
    if members:
        raise LookupError(f"more than one member of guild {guild_id} goes by {text!r}: give their user id")
    return None
