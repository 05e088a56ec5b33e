"""Facts stated to the bot and taken back: "remember ...", "forget ...", "what do you know about ...".

A remembered fact is reported by the member who said it (source "command") and is about the right
subject: a first-person statement is about its author; otherwise a mentioned member, a member named in
the text, or a known entity; failing those, the author.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from bot.services import Services
from common.events import emit
from common.links import jump_url
from common.text import keywords
from graph.models import FactView, FactWrite, NodeRef, Report, User
from graph.privacy.erasure import delete_facts, forgettable_facts
from graph.reads.facts import entities_by_names, facts_about, members_by_name
from graph.writes.discord_records import upsert_users
from graph.writes.episodes import write_command_facts
from recall.assemble import day
from recall.gather import name_candidates
from recall.names import label

FIRST_PERSON = re.compile(r"^(?:i|i'm|im|i've|ive|i'd|i'll|my|me|mine)\b", re.I)
MAX_LISTED = 20
OPTED_OUT_SELF = "You've opted out of memory, so I don't keep anything from you. `/memory opt-in` turns it back on."


@dataclass(frozen=True)
class Speaker:
    """Who gave a command, in which memory (a guild, or "dm:<id>"), in which message if any."""

    scope: str
    author: User
    message_id: str | None
    at: datetime
    channel_id: str | None = None  # where the answer is shown: what may be recalled there (graph/privacy/channels.py)
    can_open: Callable[[str], bool] = lambda _: True  # the channels whose links the asker can open (bot/sources.py)


@dataclass(frozen=True)
class Subject:
    ref: NodeRef
    name: str
    user: User | None = None


def person(user: User) -> Subject:
    return Subject(NodeRef(kind="user", id=user.id), user.display_name, user)


def _distinct(subjects: list[Subject]) -> list[Subject]:
    return list({(s.ref.kind, s.ref.id): s for s in subjects}.values())


def _names(subjects: list[Subject]) -> str:
    names = [s.name for s in subjects]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


async def named_members(services: Services, scope: str, text: str) -> list[User]:
    names = list(dict.fromkeys([*keywords(text, 60), *name_candidates(text)]))
    return [u for u in await members_by_name(services.store, scope, names) if not u.is_bot]


async def resolve_subjects(
    services: Services, speaker: Speaker, text: str, mentioned: list[User]
) -> tuple[list[Subject], list[Subject]]:
    """(about, mentions) of a fact stated by `speaker`."""
    me = person(speaker.author)
    people = _distinct([person(u) for u in [*mentioned, *await named_members(services, speaker.scope, text)]])
    others = [p for p in people if p.ref.id != speaker.author.id]
    if FIRST_PERSON.match(text):
        return [me], others
    if people:
        return people, []
    entities = await entities_by_names(services.store, speaker.scope, name_candidates(text))
    if entities:
        return [Subject(NodeRef(kind="entity", id=e.uuid), e.name) for e in entities[:3]], []
    return [me], []


def fact_text(text: str) -> str:
    return " ".join(re.sub(r"(?<!\w)@(?=\w)", "", text).split()).rstrip(".")


async def remember(services: Services, speaker: Speaker, text: str, mentioned: list[User]) -> str:
    consent = services.consent
    if not consent.allowed(speaker.author.id):
        return OPTED_OUT_SELF
    text = fact_text(text)
    if not text:
        return "Tell me what to remember, e.g. `remember that I live in Berlin`."
    about, mentions = await resolve_subjects(services, speaker, text, mentioned)
    blocked = [s for s in [*about, *mentions] if s.user is not None and not consent.allowed(s.user.id)]
    if blocked:
        return f"{_names(blocked)} opted out of memory, so I won't keep that."
    users = {u.id: u for u in [speaker.author, *(s.user for s in [*about, *mentions] if s.user)]}
    await upsert_users(services.store, list(users.values()), speaker.scope)
    fact = FactWrite(
        uuid=uuid.uuid4().hex,
        text=text,
        importance=6,
        confidence=0.9,
        valid_at=speaker.at,
        about=tuple(s.ref for s in about),
        mentions=tuple(s.ref for s in mentions),
        reports=(Report(user_id=speaker.author.id, message_id=speaker.message_id, at=speaker.at),),
        source_message_ids=(speaker.message_id,) if speaker.message_id else (),
        channel_id=speaker.channel_id,
        source="command",
    )
    await write_command_facts(services.store, speaker.scope, [fact])
    emit(
        "bot",
        "fact_remembered",
        guild_id=speaker.scope,
        fact_uuid=fact.uuid,
        about=[s.ref.id for s in about],
        mentions=len(mentions),
    )
    return f"Got it, I'll remember that {text} (about {_names(about)})."


def matches(words: list[str], text: str) -> bool:
    """Every word asked for is in the fact (as a word, or the start of one: "move" finds "moves")."""
    found = keywords(text, 200)
    return bool(words) and all(any(f == w or f.startswith(w) or (len(f) >= 4 and w.startswith(f)) for f in found) for w in words)


async def forget(services: Services, speaker: Speaker, what: str) -> str:
    words = keywords(what)
    if not words:
        return "Tell me what to forget, e.g. `forget that I live in Berlin`."
    rows = await forgettable_facts(services.store, speaker.scope, speaker.author.id, speaker.channel_id or "")
    hits = [r for r in rows if matches(words, r["text"])]
    if not hits:
        return f"I found nothing about you or from you matching “{what}”, so there was nothing to forget."
    touched = sorted({e for r in hits for e in r["entities"]})
    count = await delete_facts(services.store, speaker.scope, [r["uuid"] for r in hits], touched)
    emit("bot", "facts_forgotten", guild_id=speaker.scope, facts=count)
    shown = [r for r in hits if r["shown"]][:MAX_LISTED]  # a fact told where this channel cannot see is not read out
    lines = [f"• {r['text']}" for r in shown] + ([f"…and {len(hits) - len(shown)} more."] if len(hits) > len(shown) else [])
    return f"Forgotten ({count}):\n" + "\n".join(lines)


async def find_subjects(services: Services, speaker: Speaker, who: str, mentioned: list[User]) -> list[Subject]:
    """ "me", a mentioned member, a member by name, or an entity by name. Members who all go by the name asked
    for are each a subject, named with their account name too ("Alex (@alex.k)"), so none is answered for
    silently in place of another."""
    if who.strip().casefold() in ("me", "myself", "@me"):
        return [person(speaker.author)]
    if mentioned:
        return [person(mentioned[0])]
    members = await named_members(services, speaker.scope, who.lstrip("@"))
    if members:
        wanted = " ".join(who.lstrip("@").split()).casefold()
        exact = [u for u in members if wanted in (u.display_name.casefold(), u.name.casefold())]
        if len(exact) > 1:
            return [Subject(NodeRef(kind="user", id=u.id), label(u), u) for u in exact]
        return [person((exact or members)[0])]
    entities = await entities_by_names(services.store, speaker.scope, name_candidates(who))
    return [Subject(NodeRef(kind="entity", id=entities[0].uuid), entities[0].name)] if entities else []


def _fact_line(fact: FactView, speaker: Speaker) -> str:
    who = ", ".join(dict.fromkeys(name for _, name, _ in fact.reporters)) or "someone"
    dates = [at for _, _, at in fact.reporters if at is not None]
    link = next((url for m, c in fact.shown if speaker.can_open(c) and (url := jump_url(speaker.scope, c, m))), None)
    return f"• {fact.text} (said by {who}{' on ' + day(min(dates)) if dates else ''})" + (f" {link}" if link else "")


async def describe(services: Services, speaker: Speaker, subject: Subject) -> str:
    users, entities = ([subject.ref.id], []) if subject.ref.kind == "user" else ([], [subject.ref.id])
    facts = await facts_about(
        services.store,
        speaker.scope,
        user_ids=users,
        entity_uuids=entities,
        limit=MAX_LISTED,
        channel_id=speaker.channel_id or "",
    )
    name = "you" if subject.ref.id == speaker.author.id else subject.name
    if not facts:
        where = " in our DMs" if speaker.scope.startswith("dm:") else " here"
        return f"I don't know anything about {name}{where} yet."
    return "\n".join([f"Here's what I remember about {name}:", *(_fact_line(f, speaker) for f in facts)])
