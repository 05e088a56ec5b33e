"""Topics: "who knows about X?" and "what happened with X?" (a topic's timeline), said to the bot or as
`/memory who-knows` and `/memory timeline`. Both read only what the asking channel may recall (graph/reads/topics.py),
link each answer to messages the asker can open, and ping no one (names are plain text, mentions are off)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Literal

from bot.memory._facts import Speaker, Subject, find_subjects
from bot.memory._parse import PLEASE
from bot.services import Services
from common import bounds
from common.links import jump_url
from common.text import keywords, name_key
from graph.models import NodeRef, User
from graph.reads import topics
from graph.reads.facts import entities_by_names
from recall.assemble import day
from recall.gather import name_candidates

KNOWERS = 5  # members a who-knows answer lists
LATEST = datetime.max.replace(tzinfo=UTC)
TIMELINE_LINES = 20  # facts a timeline answer lists, the newest
_TAIL = r"(?:\s+(?:as\s+of|at)\s+(?P<at>\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?))?[\s?.!]*$"
_PATTERNS: list[tuple[Literal["who_knows", "timeline"], re.Pattern[str]]] = [
    (
        "who_knows",
        re.compile(
            rf"^{PLEASE}who(?:\s+here|\s+of\s+you)?\s+(?:knows|knows\s+anything|can\s+help(?:\s+me)?)\s+(?:about|with|on)\s+"
            r"(?P<arg>.+?)[\s?.!]*$",
            re.I | re.S,
        ),
    ),
    (
        "timeline",
        re.compile(
            rf"^{PLEASE}(?:what(?:'s|\s+has)?\s+happened\s+(?:with|to|about)|(?:show\s+(?:me\s+)?)?(?:the\s+)?timeline\s+(?:of|for)"
            rf"|(?:memory\s+)?timeline)\s+(?P<arg>.+?){_TAIL}",
            re.I | re.S,
        ),
    ),
]


@dataclass(frozen=True)
class TopicCommand:
    kind: Literal["who_knows", "timeline"]
    topic: str
    at: str | None = None  # the as-of date of a timeline, as said


def parse(text: str) -> TopicCommand | None:
    """The topic question a message to the bot asks, or None."""
    text = " ".join(text.split())
    for kind, pattern in _PATTERNS:
        match = pattern.match(text)
        if match and match["arg"].strip():
            groups = match.groupdict()
            return TopicCommand(kind, match["arg"].strip(), groups.get("at"))
    return None


def as_of(value: str | None) -> datetime | None:
    """An ISO date or datetime (UTC unless it says otherwise); a date alone is its whole day ("as of 4 May": what
    held by its end). ValueError when it is not one (common.bounds)."""
    if not value or not value.strip():
        return None
    when = bounds.instant(value, "the date")
    if len(value.strip()) == len("2024-05-04"):
        return when + timedelta(days=1, microseconds=-1) if when.date() < date.max else LATEST
    return when


def _link(speaker: Speaker, channel_id: str | None, message_id: str | None) -> str:
    url = jump_url(speaker.scope, channel_id, message_id) if channel_id and speaker.can_open(channel_id) else None
    return f" {url}" if url else ""


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


async def who_knows(services: Services, speaker: Speaker, topic: str) -> str:
    if not keywords(topic):
        return "Tell me a topic, e.g. `who knows about kubernetes?`"
    store = services.store
    found = await topics.who_knows(
        store,
        speaker.scope,
        topic,
        channel_id=speaker.channel_id or "",
        opted_out=services.consent.refresh_among,
        now=speaker.at,
        limit=KNOWERS,
    )
    if not found:
        return f"I don't know of anyone here who talked about “{topic}”."
    lines = [f"Who knows about “{topic}”, from what I may recall here:"]
    for rank, k in enumerate(found, 1):
        said = ", ".join(
            part
            for part in (_count(k.facts, "fact") if k.facts else "", _count(k.messages, "message") if k.messages else "")
            if part
        )
        last = f", last on {day(k.last)}" if k.last else ""
        example = _link(speaker, *(k.example or (None, None)))
        lines.append(f"{rank}. {k.name}: {said}{last}{example}")
    return "\n".join(lines)


async def subject_of(services: Services, speaker: Speaker, topic: str, mentioned: list[User]) -> Subject | None:
    """The member or entity a timeline is about: "me", a mention, an entity named by the topic (its whole name
    first, else its longest), else a member by name."""
    if mentioned or topic.strip().casefold() in ("me", "myself", "@me"):
        return (await find_subjects(services, speaker, topic, mentioned))[0]
    entities = await entities_by_names(services.store, speaker.scope, name_candidates(topic))
    wanted = name_key(topic)
    exact = [e for e in entities if name_key(e.name) == wanted]
    members = [s for s in await find_subjects(services, speaker, topic, []) if s.ref.kind == "user"]
    if exact or (entities and not members):
        best = (exact or sorted(entities, key=lambda e: (-len(name_key(e.name)), e.name)))[0]
        return Subject(NodeRef(kind="entity", id=best.uuid), best.name)
    return members[0] if members else None


async def timeline(services: Services, speaker: Speaker, topic: str, mentioned: list[User], at: str | None = None) -> str:
    try:
        when = as_of(at)
    except ValueError:
        return f"“{at}” is not a date I can read; use one like 2024-05-10."
    subject = await subject_of(services, speaker, topic, mentioned)
    if subject is None:
        return f"I don't know anyone or anything called “{topic}” here."
    store = services.store
    facts = await topics.timeline(
        store,
        speaker.scope,
        user_id=subject.ref.id if subject.ref.kind == "user" else None,
        entity_name=subject.name if subject.ref.kind == "entity" else None,
        at=when,
        channel_id=speaker.channel_id or "",
        opted_out=services.consent.refresh_among,
    )
    name = "you" if subject.ref.id == speaker.author.id else subject.name
    until = f" as of {day(when)}" if when else ""
    if not facts:
        return f"I have no timeline of {name}{until} here yet."
    shown = facts[-TIMELINE_LINES:]
    lines = [f"What happened with {name}{until}, oldest first:"]
    if len(facts) > len(shown):
        lines.append(f"…{len(facts) - len(shown)} earlier facts left out.")
    lines += [_timeline_line(f, speaker) for f in shown]
    return "\n".join(lines)


def _timeline_line(fact: topics.TimelineFact, speaker: Speaker) -> str:
    when = day(fact.valid_at) if fact.valid_at else "undated"
    who = ", ".join(dict.fromkeys(r.name for r in fact.reporters)) or "someone"
    link = next((url for s in fact.sources if (url := _link(speaker, s.channel_id, s.message_id))), "")
    line = f"• {when}: {fact.text} (said by {who}){link}"
    if fact.supersedes:
        line += " — replaced " + ", ".join(f"“{r.text}”" for r in fact.supersedes)
    if not fact.held:
        closed = min((t for t in (fact.invalid_at, fact.expires_at, fact.expired_at) if t is not None), default=None)
        since = f" on {day(closed)}" if closed else ""
        line += f" — superseded{since} by “{fact.superseded_by[0].text}”" if fact.superseded_by else f" — no longer holds{since}"
    return line
