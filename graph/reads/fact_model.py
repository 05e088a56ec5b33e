"""The read model of a reply's facts: per guild, every fact with what a reply's fact read uses (text, times,
audience, subjects, mentioned entities, sources, reporters), the guild's RELATED_TO links and its channels, held
in this process's memory so that a reply's fact read is a lookup in the engine (names and keys through their
indexes, the full-text search of entity names) and the rest in memory, in place of context/facts.cypher.

It answers exactly what that statement answers (`graph.reads.context.reply_facts`, tests/graph/test_fact_model.py).
It is kept right by the guild's change count (graph/changes.py): every reply's lookup reads the count in the same
statement, and a count other than the one the model was loaded at reloads the guild first. This process's own
writes reach it as they commit, before they return: messages recorded move the count it holds along with it; an
extraction, or a member renamed, marks the facts it changed (and those naming the entities or members it wrote) to
be read again before the next answer; anything else (a forget, an opt-out, a delete, a channel's mode, retention)
drops the guild's facts from memory at once (a forget leaves nothing here). The guild's part holds its channels'
talk too (graph/reads/talk_model.py), kept at the same count.

A reply reads the count once (`one_count`): its fact lookup reads it, and the reads answered from memory beside and
after it (the conversation, the second round) wait for that count rather than read it again.
"""

from __future__ import annotations

import asyncio
import math
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np

from common.text import document_terms
from graph.changes import Change
from graph.models import FactView
from graph.reads import talk_model
from graph.reads.talk_model import HeldChannel, HeldEpisode, HeldMessage
from graph.session import Tx, run
from graph.store import GraphStore

_NEVER = math.inf
VIEWS_HELD = 20_000  # a guild's facts as replies showed them, kept for the next reply (cleared when more)
_INT8 = float(np.iinfo(np.int8).max)  # a unit vector's components (each within -1..1) scaled to int8


@dataclass(frozen=True, slots=True)
class HeldFact:
    """One fact as the model holds it; `ends` is the first of its closing times (epoch seconds; inf: open)."""

    uuid: str
    text: str
    category: str | None
    importance: int | None
    confidence: float | None
    valid_at: str | None
    valid_key: float  # epoch seconds of valid_at; inf when unknown (a DESC order puts it first)
    ends: float
    audience: tuple[str, ...]  # a tuple: a frozenset of one or two channels takes four times the memory
    about: tuple[tuple[str, str | None], ...]  # (user id or entity uuid, name)
    mentions: tuple[str, ...]  # entity uuids
    sources: tuple[tuple[str, str], ...]  # (message id, channel id)
    reporters: tuple[tuple[str, str | None, str | None, str | None], ...]  # (user id, name, message id, at)
    vector: bytes = b""  # its embedding as `quantized` int8 (a dimension a byte: 384 bytes, not 3 KB of floats); b"": none
    # what ranking compares of it (`recall.ranking.fact_terms`), made once as it enters the model, not at every reply; None: none made
    terms: tuple[str, ...] | None = None
    text_terms: int = 0

    def order(self) -> tuple[float, float, str]:
        """context/facts.cypher's ORDER BY importance DESC, valid_at DESC, uuid (nulls first when DESC)."""
        return (-(self.importance if self.importance is not None else _NEVER), -self.valid_key, self.uuid)


@dataclass
class GuildFacts:
    """One guild's part of the model, and the change count it was read at (None: the guild has no count yet)."""

    count: int | None
    facts: dict[str, HeldFact] = field(default_factory=dict)
    about: dict[str, list[HeldFact]] = field(default_factory=dict)  # subject -> facts ABOUT it
    named: dict[str, list[HeldFact]] = field(default_factory=dict)  # entity -> facts ABOUT or MENTIONS it
    entities: set[str] = field(default_factory=set)
    forward: dict[str, set[str]] = field(default_factory=dict)  # RELATED_TO source -> targets (a guild entity at one end)
    backward: dict[str, set[str]] = field(default_factory=dict)  # target -> sources
    channels: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)  # id -> (mode, parent id)
    pending: set[str] = field(default_factory=set)  # facts this process wrote since: read again before answering
    pending_entities: set[str] = field(default_factory=set)  # entities it wrote (their facts' names)
    links_stale: bool = False
    written: int = 0  # how many of this process's writes added to `pending`: a refresh that saw one more keeps it
    sourced: dict[str, list[HeldFact]] = field(default_factory=dict)  # message id -> the facts drawn FROM it
    talk: dict[str, HeldChannel] = field(default_factory=dict)  # channel id -> its talk (graph/reads/talk_model.py)
    # one object for each id, name and term its facts repeat (a member's id on thousands of facts, a message's id as
    # its facts' source and report, a word): held once, and only while the guild's facts are (a forget drops them)
    interned: dict[str, str] = field(default_factory=dict)
    talk_changes: int = 0  # moves with every change of `talk`: a channel read meanwhile is not kept
    # uuid -> the views replies made of the fact, by (the sources shown, whether unscoped): made once, not every reply
    views: dict[str, dict[tuple[tuple[str, ...], bool], FactView]] = field(default_factory=dict)
    view_count: int = 0

    def view(self, fact: HeldFact, shown: tuple[str, ...], everywhere: bool, make: Callable[[], FactView]) -> FactView:
        """The reply's view of `fact` showing the sources `shown` (`make` makes it the first time)."""
        made = self.views.get(fact.uuid)
        found = made.get((shown, everywhere)) if made is not None else None
        if found is None:
            if self.view_count >= VIEWS_HELD:
                self.views.clear()
                self.view_count = 0
            found = make()
            self.views.setdefault(fact.uuid, {})[(shown, everywhere)] = found
            self.view_count += 1
        return found

    def add(self, fact: HeldFact) -> None:
        self.views.pop(fact.uuid, None)
        self.facts[fact.uuid] = fact
        for subject, _ in fact.about:
            self.about.setdefault(subject, []).append(fact)
        for entity in {*(s for s, _ in fact.about), *fact.mentions}:
            self.named.setdefault(entity, []).append(fact)
        for message in {m for m, _ in fact.sources}:
            self.sourced.setdefault(message, []).append(fact)

    def talk_written(self, messages: Iterable[Mapping[str, Any]] | None) -> None:
        """This process's write of the guild's messages (None: of anything a channel's talk holds)."""
        talk_model.apply(self.talk, None if messages is None else list(messages))
        self.talk_changes += 1

    def remove(self, uuid: str) -> None:
        self.views.pop(uuid, None)
        fact = self.facts.pop(uuid, None)
        if fact is None:
            return
        subjects = {s for s, _ in fact.about}
        messages = {m for m, _ in fact.sources}
        for table, nodes in ((self.about, subjects), (self.named, subjects | set(fact.mentions)), (self.sourced, messages)):
            for node in nodes:
                kept = [f for f in table.get(node, ()) if f.uuid != uuid]
                if kept:
                    table[node] = kept
                else:
                    table.pop(node, None)

    def set_links(self, links: Mapping[str, Any]) -> None:
        same = self.interned.setdefault
        self.entities = {same(str(e), str(e)) for e in links["entities"]}
        self.forward, self.backward = {}, {}
        for edge in [*links["outgoing"], *links["incoming"]]:
            source, target = same(str(edge["source"]), str(edge["source"])), same(str(edge["target"]), str(edge["target"]))
            self.forward.setdefault(source, set()).add(target)
            self.backward.setdefault(target, set()).add(source)
        self.channels = {str(c["id"]): (c["mode"], c["parent_id"]) for c in links["channels"]}

    def neighbours(self, node: str) -> set[str]:
        """The guild's entities RELATED_TO `node`, either way."""
        return (self.forward.get(node, set()) | self.backward.get(node, set())) & self.entities


@dataclass
class FactModel:
    """Every guild's facts this process answers from; `generation` moves whenever a guild's facts are dropped, so a
    load that began before a write that dropped them is not kept."""

    guilds: dict[str, GuildFacts] = field(default_factory=dict)
    generation: dict[str, int] = field(default_factory=dict)
    loads: int = 0

    def committed(self, changes: list[Change]) -> None:
        """This process's writes, as they commit (graph/changes.py)."""
        if any(c.every for c in changes):  # a guild the write could reach and that has no count left is gone
            for gone in set(self.guilds) - {c.guild_id for c in changes}:
                self.drop(gone)
        for change in changes:
            held = self.guilds.get(change.guild_id)
            if held is None or held.count is None or held.count != change.count - 1:
                self.drop(change.guild_id)  # another process wrote in between, or nothing is held
            elif not change.facts:
                held.count = change.count
                held.talk_written(change.messages)
            elif change.fact_uuids is not None:  # an extraction: its facts are read again before the next answer
                held.count = change.count
                held.talk_written(None)  # a window's status and summary, a member's name on their messages
                held.pending |= change.fact_uuids
                held.pending_entities |= change.entity_uuids
                held.links_stale = True
                held.written += 1
            else:
                self.drop(change.guild_id)

    def drop(self, guild_id: str) -> None:
        self.guilds.pop(guild_id, None)
        self.generation[guild_id] = self.generation.get(guild_id, 0) + 1

    def stale(self, counts: Mapping[str, int | None]) -> list[str]:
        """Drop the guilds whose count in `counts` is not the one they were read at; which were dropped."""
        dropped = [g for g, held in self.guilds.items() if held.count is None or counts.get(g) != held.count]
        for guild_id in dropped:
            self.drop(guild_id)
        return dropped

    def strings(self) -> Iterable[str]:
        """Every string the model holds (what an erasure's check searches)."""
        for guild_id, held in self.guilds.items():
            yield guild_id
            yield from held.entities
            for table in (held.forward, held.backward):
                for node, others in table.items():
                    yield node
                    yield from others
            for channel_id, (mode, parent) in held.channels.items():
                yield from (s for s in (channel_id, mode, parent) if s)
            yield from held.about
            yield from held.named
            yield from held.interned
            yield from held.sourced
            yield from talk_model.strings(held.talk)
            for made in held.views.values():
                for (shown, _), view in made.items():
                    yield from shown
                    yield from _view_strings(view)
            for f in held.facts.values():
                yield from (s for s in (f.uuid, f.text, f.category, f.valid_at) if s)
                yield from f.terms or ()
                yield from f.audience
                yield from f.mentions
                for about in f.about:
                    yield from (s for s in about if s)
                for source in f.sources:
                    yield from source
                for reporter in f.reporters:
                    yield from (s for s in reporter if s)

    def size_bytes(self) -> int:
        """The memory the model's records take (their objects, not the interpreter's shared ones)."""
        return _size(self.guilds)

    def talk_bytes(self) -> int:
        """The part of it the channels' talk takes (graph/reads/talk_model.py)."""
        return _size([held.talk for held in self.guilds.values()])


def _view_strings(view: FactView) -> Iterator[str]:
    yield from (s for s in (view.uuid, view.text, view.category, view.superseded_by) if s)
    yield from view.terms or ()
    yield from view.about
    yield from view.about_ids
    for reporter, name, _ in view.reporters:
        yield from (reporter, name)
    yield from view.sources
    for shown in view.shown:
        yield from shown


def _size(root: object) -> int:
    """The memory of `root` and every object of the model it reaches, each once."""
    seen: set[int] = set()
    total = 0
    stack: list[Any] = [root]
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        total += sys.getsizeof(item)
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple | set | frozenset):
            stack.extend(item)
        elif isinstance(item, HeldFact | GuildFacts | HeldChannel | HeldEpisode | HeldMessage | FactView):
            stack.extend(getattr(item, name) for name in item.__dataclass_fields__)
    return total


def model_of(store: GraphStore) -> FactModel:
    """The store's read model, made (and told of the store's writes) the first time it is asked for."""
    model = store.memo.get("fact_model")
    if not isinstance(model, FactModel):
        model = FactModel()
        store.memo["fact_model"] = model
        store.runner.changes.listeners.append(model.committed)
    return model


async def drop_stale(store: GraphStore) -> list[str]:
    """Drop the guilds another process wrote since they were read (store/guild_changes.cypher): the bot's upkeep
    runs it, so that a forget from the CLI leaves nothing here even in a guild where no one talks."""
    model = model_of(store)
    if not model.guilds:
        return []
    rows = await store.runner.read("store/guild_changes")
    return model.stale({str(r["guild_id"]): None if r["changes"] is None else int(r["changes"]) for r in rows})


def _epoch(text: str | None) -> float:
    if text is None:
        return _NEVER
    parsed = datetime.fromisoformat(text)
    return (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).timestamp()


def held_terms(text: str, about: Iterable[tuple[str, str | None]], interned: dict[str, str]) -> tuple[tuple[str, ...], int]:
    """The ranking terms of a fact's text then of its subjects' names as its reply view shows them (the name, else
    the id), each term the guild's one object of it (`interned`); and how many are the text's."""
    own = document_terms(text)
    named = document_terms(" ".join(name or subject for subject, name in about))
    return tuple(interned.setdefault(t, t) for t in (*own, *named)), len(own)


def held_fact(row: Mapping[str, Any], interned: dict[str, str] | None = None) -> HeldFact:
    """A row of context/model_facts.cypher; the ids, names and terms it repeats shared through `interned` (the
    guild's table)."""
    table: dict[str, str] = {} if interned is None else interned

    def same(value: Any) -> str:
        text = str(value)
        return table.setdefault(text, text)

    def maybe(value: str | None) -> str | None:
        return None if value is None else same(value)

    importance, confidence = row["importance"], row["confidence"]
    about = tuple((same(a["id"]), maybe(a["name"])) for a in row["about"])
    terms, text_terms = held_terms(row["text"], about, table)
    return HeldFact(
        uuid=row["uuid"],
        text=row["text"],
        category=maybe(row["category"]),
        importance=None if importance is None else int(importance),
        confidence=None if confidence is None else float(confidence),
        valid_at=maybe(row["valid_at"]),  # most often its report's time (`at`): one string for both
        valid_key=_epoch(row["valid_at"]),
        ends=min(_epoch(row["invalid_at"]), _epoch(row["expired_at"]), _epoch(row["expires_at"])),
        audience=tuple(same(a) for a in row["audience"] or ()),
        about=about,
        mentions=tuple(same(e) for e in row["mentions"]),
        sources=tuple((same(m["id"]), same(m["channel_id"])) for m in row["sources"]),
        reporters=tuple((same(r["id"]), maybe(r["name"]), maybe(r["message_id"]), maybe(r["at"])) for r in row["reporters"]),
        vector=quantized(row.get("embedding")),
        terms=terms,
        text_terms=text_terms,
    )


def quantized(vector: Iterable[float] | None) -> bytes:
    """A unit embedding as int8 bytes, a component a byte (b"" for none): the ranking it gives a reply's candidates is
    that of the float vector to within the rounding (1/254 of a component), at an eighth of float64's memory."""
    if vector is None:
        return b""
    values = np.asarray(list(vector), dtype=np.float32)
    if values.size == 0:
        return b""
    return bytes(np.clip(np.rint(values * _INT8), -_INT8, _INT8).astype(np.int8).tobytes())


def similarities(facts: Iterable[HeldFact], query: Iterable[float] | None) -> dict[str, float]:
    """Cosine of each fact's held embedding with the unit vector `query`, by uuid, scored in memory for only the
    facts asked about (a fact without one, or of another dimension, is left out)."""
    if query is None:
        return {}
    asked = np.asarray(list(query), dtype=np.float32)
    held = [f for f in facts if len(f.vector) == asked.size]
    if not held or asked.size == 0:
        return {}
    matrix = np.frombuffer(b"".join(f.vector for f in held), dtype=np.int8).reshape(len(held), asked.size)
    scores = matrix.astype(np.float32) @ asked / _INT8
    return {f.uuid: float(s) for f, s in zip(held, scores)}


async def load_guild(store: GraphStore, guild_id: str) -> GuildFacts:
    """Read one guild's part of the model in one read transaction (context/model_facts, context/model_links)."""

    async def work(tx: Tx) -> GuildFacts:
        # the count first: a write committed between the reads leaves facts newer than it, never older
        [links] = await run(tx, "context/model_links", guild_id=guild_id)
        facts = await run(tx, "context/model_facts", guild_id=guild_id)
        count = links["changes"]
        held = GuildFacts(count=None if count is None else int(count))
        for row in facts:
            held.add(held_fact(row, held.interned))
        held.set_links(links)
        return held

    return await store.runner.read_tx(work)


async def refresh(store: GraphStore, guild_id: str, held: GuildFacts) -> None:
    """Read again the facts this process wrote since `held` was read (and those naming the entities it wrote), and
    the guild's links, in place."""
    entities, written = set(held.pending_entities), held.written
    uuids = set(held.pending) | {f.uuid for e in entities for table in (held.named, held.about) for f in table.get(e, ())}
    if entities:  # a member renamed: the facts they reported show their new name
        uuids |= {f.uuid for f in held.facts.values() if any(r[0] in entities for r in f.reporters)}

    async def work(tx: Tx) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        [links] = await run(tx, "context/model_links", guild_id=guild_id)
        return links, await run(tx, "context/model_facts_by_uuid", guild_id=guild_id, uuids=sorted(uuids))

    links, rows = await store.runner.read_tx(work)
    for uuid in uuids:
        held.remove(uuid)
    for row in rows:
        held.add(held_fact(row, held.interned))
    held.set_links(links)
    if held.written == written:  # else a write committed while this read: what it changed is read again next time
        held.pending -= uuids
        held.pending_entities -= entities
        held.links_stale = False


def _lookup_params(
    guild_id: str,
    *,
    channel_id: str | None = None,
    mentioned_ids: list[str] | None = None,
    names: list[str] | None = None,
    keys: list[str] | None = None,
    query: str = "",
    skip_ids: list[str] | None = None,
    limit: int = 0,
    hits: int = 0,
) -> dict[str, Any]:
    return {
        "guild_id": guild_id,
        "channel_id": channel_id,
        "mentioned_ids": mentioned_ids or [],
        "names": names or [],
        "keys": keys or [],
        "query": query,
        "skip_ids": skip_ids or [],
        "limit": limit,
        "hits": hits,
    }


@dataclass(frozen=True)
class Lookup:
    """What context/fact_lookup.cypher found for one reply."""

    people: list[Mapping[str, Any]]
    keyed: list[str]
    searched: list[str]
    count: int | None
    parent: str | None


_COUNTS: ContextVar[dict[str, asyncio.Future[int | None]] | None] = ContextVar("grapevine_reply_counts", default=None)


@contextmanager
def one_count() -> Iterator[None]:
    """Within it (one reply's reads), the guild's change count is read once: by the fact lookup, the reads from
    memory beside and after it waiting for what it read (`reply_count`)."""
    token = _COUNTS.set({})
    try:
        yield
    finally:
        _COUNTS.reset(token)


async def lookup(store: GraphStore, guild_id: str, **params: Any) -> Lookup:
    shared = _COUNTS.get()
    mine: asyncio.Future[int | None] | None = None
    if shared is not None and guild_id not in shared:
        mine = shared[guild_id] = asyncio.get_running_loop().create_future()
    try:
        [row] = await store.runner.read_plain("context/fact_lookup", **_lookup_params(guild_id, **params))
    except BaseException:
        if mine is not None and shared is not None:
            shared.pop(guild_id, None)
            mine.cancel()  # who waits for it reads the count itself
        raise
    count = None if row["changes"] is None else int(row["changes"])
    if mine is not None:
        mine.set_result(count)
    return Lookup(list(row["people"]), list(row["keyed"]), list(row["searched"]), count, row["parent"])


@contextmanager
def shared_count() -> Iterator[None]:
    """`one_count`, unless the reads are inside one already (a read made alone, not by a whole reply)."""
    if _COUNTS.get() is not None:
        yield
        return
    with one_count():
        yield


async def reply_count(store: GraphStore, guild_id: str) -> int | None:
    """The guild's change count: the one this reply's fact lookup (or its first read from memory) read
    (`one_count`), else read now."""
    shared = _COUNTS.get()
    future = shared.get(guild_id) if shared is not None else None
    if future is not None:
        await asyncio.wait([future])
        if not future.cancelled():
            return future.result()
    mine: asyncio.Future[int | None] | None = None
    if shared is not None and future is None:
        mine = shared[guild_id] = asyncio.get_running_loop().create_future()
    try:
        rows = await store.runner.read_plain("context/guild_count", guild_id=guild_id)
    except BaseException:
        if mine is not None and shared is not None:
            shared.pop(guild_id, None)
            mine.cancel()
        raise
    changes = rows[0]["changes"] if rows else None
    count = None if changes is None else int(changes)
    if mine is not None:
        mine.set_result(count)
    return count


def current(store: GraphStore, guild_id: str, count: int | None) -> GuildFacts | None:
    """The guild's part of the model when it is held at `count` with nothing of this process's writes to read again."""
    held = model_of(store).guilds.get(guild_id)
    if held is None or count is None or held.count != count or held.pending or held.pending_entities or held.links_stale:
        return None
    return held


async def channel_talk(store: GraphStore, guild: GuildFacts, guild_id: str, channel_id: str) -> HeldChannel | None:
    """The channel's talk held with `guild` (read now and kept when it is not: graph/reads/talk_model.py), or None
    when what was read is of another count than the guild's."""
    talk = guild.talk.get(channel_id)
    if talk is not None:
        return talk
    changes = guild.talk_changes
    loaded = await talk_model.load_channel(store, guild_id, channel_id)
    if loaded.count is None or loaded.count != guild.count:
        return None
    if model_of(store).guilds.get(guild_id) is guild and guild.count == loaded.count and guild.talk_changes == changes:
        guild.talk[channel_id] = loaded  # not when a write of this process changed the guild's talk while it was read
    return loaded


async def held(store: GraphStore, guild_id: str, count: int | None) -> GuildFacts:
    """The guild's facts as of `count` (just read): those held when they were read at it, else read again."""
    model = model_of(store)
    current = model.guilds.get(guild_id)
    if current is not None and count is not None and current.count == count:
        if current.pending or current.pending_entities or current.links_stale:
            await refresh(store, guild_id, current)
        return current
    generation = model.generation.get(guild_id, 0)
    loaded = await load_guild(store, guild_id)
    model.loads += 1
    if model.generation.get(guild_id, 0) == generation and loaded.count is not None:
        model.guilds[guild_id] = loaded  # not when a write of this process dropped the guild while it was read
    return loaded


def _pattern(topical: list[str]) -> re.Pattern[str] | None:
    """context/facts.cypher's `(?isU).*\\b(?:w1|w2)\\b.*` (the words are word characters only)."""
    if not topical:
        return None
    return re.compile(r"\b(?:" + "|".join(topical) + r")\b", re.IGNORECASE | re.DOTALL | re.UNICODE)


def _best(facts: Iterable[HeldFact], now: float, limit: int) -> list[HeldFact]:
    return sorted({f.uuid: f for f in facts if f.ends > now}.values(), key=HeldFact.order)[:limit]


def alternated(*orders: Sequence[HeldFact]) -> list[HeldFact]:
    """The facts of `orders` taken from each in turn, best first, each once: a pool cut from it holds the best of
    every order."""
    out: dict[str, HeldFact] = {}
    for rank in range(max((len(o) for o in orders), default=0)):
        for order in orders:
            if rank < len(order):
                out.setdefault(order[rank].uuid, order[rank])
    return list(out.values())


def reply_facts_held(
    guild: GuildFacts,
    found: Lookup,
    *,
    author_id: str,
    names: list[str],
    channel_id: str | None,
    now: datetime,
    author_limit: int,
    pool: int,
    limit: int,
    hop_limit: int,
    vector: Sequence[float] | None = None,
) -> list[tuple[str, HeldFact, tuple[str, ...]]]:
    """context/facts.cypher answered from the model: (source, fact, ids of the sources `channel_id` may show), each
    source's facts chosen before the channel scope is applied, as the statement does. With `vector` (the message's
    embedding), the named members' `pool` is drawn from two orders in turn, the statement's (a fact holding a word
    of the message first, then importance) and the facts' similarity to the message (`similarities`), so that a
    fact that answers in other words than the question's is considered too; without it, exactly the statement's."""
    at = now.timestamp()
    people = found.people
    author = _best(guild.about.get(author_id, ()), at, author_limit)
    topical = [w for w in names if not any(w in (p["name_lower"], p["display_lower"]) for p in people)]
    pattern = _pattern(topical)
    of_people = {f.uuid: f for p in people for f in guild.about.get(str(p["id"]), ()) if f.ends > at}.values()

    def hit(f: HeldFact) -> int:
        return 1 if pattern is not None and pattern.search(f.text) else 0

    named_people = sorted(of_people, key=lambda f: (-hit(f), *f.order()))
    near = similarities(named_people, vector) if len(named_people) > pool else {}
    if near:
        named_people = alternated(named_people, sorted(named_people, key=lambda f: (-near.get(f.uuid, -2.0), f.uuid)))
    named_people = named_people[:pool]
    entities = _best((f for e in {*found.keyed, *found.searched} for f in guild.named.get(e, ())), at, pool)
    linked = _best((f for e in guild.backward.get(author_id, set()) & guild.entities for f in guild.about.get(e, ())), at, limit)
    starts = [str(p["id"]) for p in people] + list(found.keyed)
    hop = _best((f for n in starts for x in guild.neighbours(n) for f in guild.about.get(x, ())), at, hop_limit)
    # as the statement: the guild's shared channels, `channel_id` and its parent; unscoped, the sources shown are
    # still only those of shared channels (a null channel is in no list)
    visible = {c for c, (mode, _) in guild.channels.items() if mode == "shared"}
    visible |= {c for c in (channel_id, found.parent) if c is not None}
    out = []
    for source, facts in (("author", author), ("people", named_people), ("entities", entities), ("linked", linked),
                          ("hop", hop)):  # fmt: skip
        for f in facts:
            if channel_id is not None and not any(a in visible for a in f.audience):
                continue
            out.append((source, f, tuple(m for m, c in f.sources if c in visible)))
    return out
