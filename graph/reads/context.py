"""The reads of a reply's context (queries/context/ and the vector search): the facts of every source, the
conversation with its recalled messages, the second round, and the nearest facts by embedding.

Each takes the store and returns the graph's records, read from the statements' named fields; `recall.gather` decides what to ask for and
`RecallTuning` bounds the searches. A quiet channel's older talk: the recalled search looks only at the channel's
last `RecallTuning.span`, so in a channel that talks a few times a month what was said two months ago would never
be recalled; a read beside it goes on through the channel's earlier windows, a bounded number of them.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from common.settings import RecallTuning
from common.text import keywords, lucene_query
from graph import rows
from graph.keys import channel_time
from graph.models import Conversation, FactView, MessageView, Recalled, iso, utc
from graph.reads import fact_model, talk_model
from graph.store import GraphStore

REPLY_FACT_SOURCES = ("author", "people", "entities", "linked", "hop")  # context/facts.cypher
_WHOLE_WORD = r"(?isU).*\b{}\b.*"  # a Java regex: the content holds the word as a whole word, in any case


@dataclass(frozen=True)
class SecondRound:
    """What a reply's second read gives (`second_round`)."""

    evidence: list[tuple[int, bool, MessageView]] = field(default_factory=list)  # (fact rank, is the source, message)
    matched: list[FactView] = field(default_factory=list)  # facts drawn from the recalled messages


@dataclass(frozen=True)
class FactRequest:
    """A reply's read of the facts of every source (`reply_facts`, `reply_facts_read`): "author" (facts about
    `author_id`, up to `author_limit`), "people" (members mentioned or named by `names`, casefolded) and "entities"
    (named by their keys `entity_keys` or whose names match `text`), up to `pool` each, "linked" (entities linked to
    the author), up to `limit`, and "hop" (entities related to the named members and entities), up to `hop_limit`;
    none of `skip_ids` as a member named. Every fact read holds at `now`. With `channel_id`, only facts and
    reporters that may be recalled in that channel (graph/privacy/channels.py)."""

    guild_id: str
    author_id: str
    mentioned_ids: list[str]
    names: list[str]
    entity_keys: list[str]
    text: str
    skip_ids: list[str]
    now: datetime
    author_limit: int = 50
    pool: int = 20
    limit: int = 20
    hop_limit: int = 20
    channel_id: str | None = None
    tuning: RecallTuning = RecallTuning()
    vector: tuple[float, ...] | None = None  # the message's embedding: the read model draws on it (fact_model)

    def casefolded(self) -> list[str]:
        return sorted({n.casefold() for n in self.names if n})

    def keys(self) -> list[str]:
        return sorted({k for k in self.entity_keys if k})


async def reply_facts(store: GraphStore, asked: FactRequest) -> dict[str, list[FactView]]:
    """Every fact a reply draws on, by source (`FactRequest`), each source ranked most important and newest first;
    of a fact's times only valid_at and the reporters' are read (the reply shows no other).

    Answered by the process's read model (graph/reads/fact_model.py): the engine looks up the names, keys and
    entity names and gives the guild's change count (context/fact_lookup.cypher), the model the rest;
    `reply_facts_read` is the same read as one statement."""
    casefolded = asked.casefolded()
    found = await fact_model.lookup(
        store,
        asked.guild_id,
        channel_id=asked.channel_id,
        mentioned_ids=asked.mentioned_ids,
        names=casefolded,
        keys=asked.keys(),
        query=lucene_query(asked.text),
        skip_ids=asked.skip_ids,
        limit=asked.limit,
        hits=asked.limit * asked.tuning.search_hits,
    )
    guild = await fact_model.held(store, asked.guild_id, found.count)
    chosen = fact_model.reply_facts_held(
        guild, found, author_id=asked.author_id, names=casefolded, channel_id=asked.channel_id, now=asked.now,
        author_limit=asked.author_limit, pool=asked.pool, limit=asked.limit, hop_limit=asked.hop_limit,
        vector=asked.vector,
    )  # fmt: skip
    by_source: dict[str, list[FactView]] = {s: [] for s in REPLY_FACT_SOURCES}
    everywhere = asked.channel_id is None
    for source, fact, shown in chosen:
        by_source[source].append(guild.view(fact, shown, everywhere, lambda: _held_view(fact, shown, everywhere)))
    return {source: sorted(facts, key=rows.importance_then_newest) for source, facts in by_source.items()}


async def similar_facts(store: GraphStore, guild_id: str, uuids: Sequence[str], vector: Sequence[float] | None) -> list[str]:
    """Of the facts `uuids` (a reply's candidates, read within its scope already), those the read model holds with an
    embedding, most similar to `vector` (the message's) first, ties by uuid: an order to fuse with the words'
    (`recall.ranking.rank_facts`), scored in memory. Empty without a vector, or when the model does not hold the
    guild at its count."""
    if vector is None or not uuids:
        return []
    guild = fact_model.current(store, guild_id, await fact_model.reply_count(store, guild_id))
    if guild is None:
        return []
    scores = fact_model.similarities((guild.facts[u] for u in dict.fromkeys(uuids) if u in guild.facts), vector)
    return sorted(scores, key=lambda u: (-scores[u], u))


def _held_view(fact: fact_model.HeldFact, shown: tuple[str, ...], everywhere: bool) -> FactView:
    """A held fact as `reply_fact` reads context/facts.cypher's: reporters only where their message may be shown."""
    visible = set(shown)
    return FactView(
        uuid=fact.uuid,
        text=fact.text,
        category=fact.category or "other",
        importance=int(fact.importance or 5),
        confidence=float(fact.confidence if fact.confidence is not None else 0.8),
        valid_at=_maybe_when(fact.valid_at),
        about=tuple(name or subject for subject, name in fact.about),
        about_ids=tuple(subject for subject, _ in fact.about),
        reporters=rows.reporters(
            (
                {"id": r, "name": name, "at": at}
                for r, name, message, at in fact.reporters
                if everywhere or message == "" or message in visible
            ),
            _maybe_when,
        ),  # fmt: skip
        sources=tuple(m for m, _ in fact.sources),
        shown=tuple((m, c) for m, c in fact.sources if m in visible),
        terms=fact.terms,
        text_terms=fact.text_terms,
    )


async def reply_facts_read(store: GraphStore, asked: FactRequest) -> dict[str, list[FactView]]:
    """`reply_facts` as one statement (context/facts.cypher), without the read model."""
    found = await store.runner.read_plain(
        "context/facts",
        guild_id=asked.guild_id,
        channel_id=asked.channel_id,
        author_id=asked.author_id,
        mentioned_ids=asked.mentioned_ids,
        names=asked.casefolded(),
        keys=asked.keys(),
        query=lucene_query(asked.text),
        skip_ids=asked.skip_ids,
        now=utc(asked.now),
        author_limit=asked.author_limit,
        pool=asked.pool,
        limit=asked.limit,
        hop_limit=asked.hop_limit,
        hits=asked.limit * asked.tuning.search_hits,
    )
    by_source: dict[str, list[FactView]] = {s: [] for s in REPLY_FACT_SOURCES}
    for item in found[0]["facts"] if found else []:
        by_source[item["source"]].append(reply_fact(item))
    return {source: sorted(facts, key=rows.importance_then_newest) for source, facts in by_source.items()}


@dataclass(frozen=True)
class RoundRequest:
    """A reply's second round (`second_round`, `second_round_read`): the channel's messages the facts `uuids` were
    drawn from with their `span` neighbours each side in their episode, before `at`; and up to `limit` facts drawn
    from `message_ids` (messages the reply recalled, best first) that hold at `at` and may be recalled in
    `channel_id`."""

    guild_id: str
    channel_id: str
    uuids: list[str]
    message_ids: list[str]
    at: datetime
    span: int = 1
    limit: int = 40


async def second_round(store: GraphStore, request: RoundRequest) -> SecondRound:
    """A reply's second round in one read (context/second_round.cypher): the turns of `request`'s facts as (rank of
    the fact in `uuids`, whether it is the source itself, message), and the facts drawn from its recalled messages.

    Answered from the process's read model when it holds the guild at its count (graph/reads/talk_model.py): the
    statement is asked only for the turns of facts drawn from windows older than those it holds."""
    r = request
    if not r.uuids and not r.message_ids:
        return SecondRound()
    guild = fact_model.current(store, r.guild_id, await fact_model.reply_count(store, r.guild_id))
    if guild is None:
        return await second_round_read(store, r)
    matched = [guild.view(f, shown, False, lambda: _held_view(f, shown, False))
               for f, shown in _matched_held(guild, r.channel_id, r.message_ids, r.at, r.limit)]  # fmt: skip
    in_channel = [(rank, [m for m, c in fact.sources if c == r.channel_id])
                  for rank, fact in enumerate(guild.facts.get(u) for u in r.uuids) if fact is not None]  # fmt: skip
    in_channel = [(rank, ids) for rank, ids in in_channel if ids]
    found = None
    if in_channel:
        talk = await fact_model.channel_talk(store, guild, r.guild_id, r.channel_id)
        found = talk_model.evidence_held(talk, in_channel, at=r.at, span=r.span) if talk is not None else None
    if in_channel and found is None:
        asked = await second_round_read(store, replace(r, message_ids=[]))
        return SecondRound(evidence=asked.evidence, matched=matched)
    return SecondRound(evidence=[(int(m["rank"]), bool(m["is_source"]), rows.message_view(m)) for m in found or []],
                       matched=matched)  # fmt: skip


def _matched_held(
    guild: fact_model.GuildFacts, channel_id: str, message_ids: list[str], at: datetime, limit: int
) -> list[tuple[fact_model.HeldFact, tuple[str, ...]]]:
    """context/second_round.cypher's `matched` from the model: the facts drawn from `message_ids` (best first) that
    hold at `at` and may be recalled in `channel_id`, by the rank of their best message, with the sources shown."""
    now = at.timestamp()
    visible = talk_model.visible_channels(guild.channels, channel_id)
    ranked: dict[str, tuple[int, fact_model.HeldFact]] = {}
    for rank, message_id in enumerate(message_ids):
        for fact in guild.sourced.get(message_id, ()):
            if fact.ends > now and fact.uuid not in ranked:
                ranked[fact.uuid] = (rank, fact)
    kept = sorted(
        ((r, f) for r, f in ranked.values() if any(a in visible for a in f.audience)), key=lambda rf: (rf[0], rf[1].uuid)
    )
    return [(f, tuple(m for m, c in f.sources if c in visible)) for _, f in kept[:limit]]


async def second_round_read(store: GraphStore, request: RoundRequest) -> SecondRound:
    """`second_round` as one statement (context/second_round.cypher), without the read model."""
    r = request
    if not r.uuids and not r.message_ids:
        return SecondRound()
    found = await store.runner.read_plain(
        "context/second_round",
        guild_id=r.guild_id,
        channel_id=r.channel_id,
        uuids=r.uuids,
        ids=r.message_ids,
        now=utc(r.at),
        span=r.span,
        limit=r.limit,
    )
    row = found[0] if found else {"matched": [], "evidence": []}
    return SecondRound(
        evidence=[(int(m["rank"]), bool(m["is_source"]), rows.message_view(m)) for m in row["evidence"]],
        matched=[reply_fact(item) for item in row["matched"]],
    )


async def conversation(
    store: GraphStore,
    guild_id: str,
    channel_id: str,
    *,
    author_id: str,
    at: datetime,
    reply_to_id: str | None = None,
    skip_message_id: str | None = None,
    episodes: int = 5,
    messages: int = 30,
    chain: int = 41,
    text: str = "",
    recall: int = 0,
    older_episodes: int = 0,
    tuning: RecallTuning = RecallTuning(),
    model: bool = True,
) -> Conversation:
    """The conversation a reply belongs to, in three concurrent reads: the author, the channel's last episodes
    before `at` (summaries of the extracted ones), the channel's last messages before `at` (from those
    episodes and the messages not yet in one), the chain `reply_to_id` replies to, and up to `recall`
    of the channel's messages before `at` whose content matches the words of `text`, best first, the best
    `tuning.neighbour_matches` with the messages next to them; and as many of the messages of the channel's
    last `older_episodes` windows that ended before `tuning.span` (`older`: a quiet channel's older talk).

    The author, summaries, messages and chain come from the process's read model when it holds the channel at the
    guild's count (graph/reads/talk_model.py), else (or without `model`) from context/conversation.cypher; the searches
    from it too when it holds every message they read, else they are statements."""
    words = keywords(text) if recall > 0 else []  # no words, no search
    patterns = search_patterns(words, tuning.rarity, tuning.passage)
    near = tuning.neighbour_matches
    runner = store.runner
    asked = {"guild_id": guild_id, "channel_id": channel_id, "author_id": author_id, "at": at,
             "reply_to_id": reply_to_id, "skip_id": skip_message_id, "episodes": episodes, "messages": messages,
             "chain": chain}  # fmt: skip
    talk = conversation_talk(store, asked) if model else conversation_row(store, asked)
    scoring = {"words": words, "rarity": tuning.rarity, "passage": tuning.passage, "recall": recall, "near": near}

    def recalled_span(held: talk_model.HeldChannel) -> list[talk_model.HeldMessage] | None:
        return talk_model.recalled_span(held, channel_id, at - tuning.span, at, tuning.span_messages)

    def older_span(held: talk_model.HeldChannel) -> list[talk_model.HeldMessage] | None:
        return talk_model.older_span(held, channel_id, at - tuning.span, older_episodes)

    # the recalled messages, a statement of its own run beside it (context/recalled.cypher says why): among
    # the channel's last `tuning.span_messages` messages of `tuning.span` (Java regex); from the held talk when it
    # holds every one of them
    search = (
        _searched(
            store, guild_id, channel_id, recalled_span if model else None, scoring,
            lambda: runner.read_plain(
                "context/recalled",
                guild_id=guild_id,
                recall=recall,
                near=near,
                **patterns,
                recall_from=channel_time(channel_id, at - tuning.span),
                recall_to=channel_time(channel_id, at),
                recall_window=tuning.span_messages,
            ),
        )
        if words
        else _no_rows()
    )  # fmt: skip
    # a quiet channel's older windows, a statement of its own too (context/recalled_before.cypher says why)
    older = (
        _searched(
            store, guild_id, channel_id, older_span if model else None, scoring,
            lambda: runner.read_plain(
                "context/recalled_before",
                guild_id=guild_id,
                channel_id=channel_id,
                before=utc(at - tuning.span),
                episodes=older_episodes,
                recall=recall,
                near=near,
                **patterns,
            ),
        )
        if words and older_episodes > 0
        else _no_rows()
    )  # fmt: skip
    with fact_model.shared_count():  # the reads from memory read the guild's count once between them
        row, searched, earlier = await asyncio.gather(talk, search, older)
    recalled = _recalled(searched[0]["recalled"] if searched else [])
    return Conversation(
        author=rows.user(row["author"]) if row["author"] else None,
        summaries=tuple(sorted((_when(s["ended_at"]), s["summary"]) for s in row["summaries"])),
        recent=tuple(sorted((rows.message_view(m) for m in row["recent"]), key=lambda m: (m.created_at, m.id))),
        chain=tuple(sorted((rows.message_view(m) for m in row["chain"]), key=lambda m: (m.created_at, m.id))),
        recalled=recalled.matches,
        around=recalled.around,
        older=_recalled(earlier[0]["recalled"] if earlier else []),
    )


async def _searched(
    store: GraphStore,
    guild_id: str,
    channel_id: str,
    span: Callable[[talk_model.HeldChannel], list[talk_model.HeldMessage] | None] | None,
    scoring: dict[str, Any],
    statement: Callable[[], Awaitable[list[dict[str, Any]]]],
) -> list[dict[str, Any]]:
    """A recalled search's rows: scored in memory over its `span` of the held talk when the model holds the channel
    at the guild's count and every message of the span (talk_model.scored), else the statement's. The statement
    starts at once when the talk held now cannot answer, so that a reply waits for no more than it did."""
    before = fact_model.model_of(store).guilds.get(guild_id)
    held_now = before.talk.get(channel_id) if before is not None else None
    changes = before.talk_changes if before is not None else 0
    if span is None or held_now is None:
        return await statement()
    found = span(held_now)
    if found is None:
        return await statement()
    guild = fact_model.current(store, guild_id, await fact_model.reply_count(store, guild_id))
    held = guild.talk.get(channel_id) if guild is not None else None
    if guild is None or held is None:
        return await statement()
    if guild is not before or held is not held_now or guild.talk_changes != changes:  # a write meanwhile
        found = span(held)
        if found is None:
            return await statement()
    return [{"recalled": talk_model.scored(held, found, **scoring)}]


def _held_talk(store: GraphStore, guild_id: str, channel_id: str) -> talk_model.HeldChannel | None:
    """The channel's talk the model holds now, whatever the guild's count (checked after)."""
    guild = fact_model.model_of(store).guilds.get(guild_id)
    return guild.talk.get(channel_id) if guild is not None else None


async def passage_turns(
    store: GraphStore, guild_id: str, channel_id: str, *, ids: list[str], at: datetime, reach: int, model: bool = True
) -> dict[str, list[tuple[int, MessageView]]]:
    """The passages of a reply's recalled matches (context/passages.cypher), for `recall.expand` to rank: for each
    match of `ids`, the messages of its window up to `reach` each side, sent in `channel_id` of `guild_id` before
    `at`, as (signed distance from the match in turns, message), nearest first. From the held talk when the model
    holds the channel at the guild's count with every match's window whole (or without `model`), else the statement."""
    if not ids or reach <= 0:
        return {}
    turns: list[dict[str, Any]] | None = None
    if model and _held_talk(store, guild_id, channel_id) is not None:
        guild = fact_model.current(store, guild_id, await fact_model.reply_count(store, guild_id))
        held = guild.talk.get(channel_id) if guild is not None else None
        turns = talk_model.passages_held(held, channel_id, ids, at=at, reach=reach) if held is not None else None
    if turns is None:
        found = await store.runner.read_plain(
            "context/passages", guild_id=guild_id, channel_id=channel_id, ids=ids, now=utc(at), reach=reach
        )
        turns = found[0]["turns"] if found else []
    sides: dict[tuple[str, int], list[MessageView]] = {}
    for item in turns:
        sides.setdefault((item["near"], int(item["side"])), []).append(rows.message_view(item))
    out: dict[str, list[tuple[int, MessageView]]] = {}
    for (match, side), messages in sides.items():
        ordered = sorted(messages, key=lambda m: (m.created_at, m.id), reverse=side < 0)  # nearest first
        out.setdefault(match, []).extend((side * (i + 1), m) for i, m in enumerate(ordered))
    return {match: sorted(near, key=lambda dm: (abs(dm[0]), dm[0])) for match, near in out.items()}


async def conversation_talk(store: GraphStore, asked: dict[str, Any]) -> dict[str, Any]:
    """context/conversation.cypher's row: from the read model when it can answer it, else the statement."""
    guild_id, channel_id = asked["guild_id"], asked["channel_id"]
    guild = fact_model.current(store, guild_id, await fact_model.reply_count(store, guild_id))
    talk = await fact_model.channel_talk(store, guild, guild_id, channel_id) if guild is not None else None
    if guild is not None and talk is not None:
        found = talk_model.conversation_held({**guild.talk, channel_id: talk}, guild.channels, channel_id,
                                             **{k: v for k, v in asked.items() if k not in ("guild_id", "channel_id")})  # fmt: skip
        if found is not None:
            return found
    return await conversation_row(store, asked)


async def conversation_row(store: GraphStore, asked: dict[str, Any]) -> dict[str, Any]:
    """context/conversation.cypher's row for `asked` (`conversation`'s arguments), without the read model."""
    [row] = await store.runner.read_plain("context/conversation", **{**asked, "at": utc(asked["at"])})
    return row


async def nearest_facts(
    store: GraphStore,
    guild_id: str,
    vector: list[float],
    *,
    now: datetime | None = None,
    limit: int = 20,
    channel_id: str | None = None,
) -> list[FactView]:
    found = await store.runner.read(
        "store/nearest_facts",
        guild_id=guild_id,
        vector=vector,
        k=limit * 4,
        now=iso(now or datetime.now(UTC)),
        limit=limit,
        channel_id=channel_id,
    )
    return [rows.fact(r) for r in found]


def reply_fact(item: dict[str, Any]) -> FactView:
    """A fact of context/facts.cypher (and second_round's `matched`), as that file names its fields; the reply
    reads no times but valid_at and the reporters'."""
    importance, confidence = item["importance"], item["confidence"]
    return FactView(
        uuid=item["uuid"],
        text=item["text"],
        category=item["category"] or "other",
        importance=int(importance or 5),
        confidence=float(confidence if confidence is not None else 0.8),
        valid_at=_maybe_when(item["valid_at"]),
        about=tuple(a["name"] or a["id"] for a in item["about"]),
        about_ids=tuple(a["id"] for a in item["about"]),
        reporters=rows.reporters(item["reporters"], _maybe_when),
        sources=tuple(item["sources"]),
        shown=tuple((m["id"], m["channel_id"]) for m in item["shown"]),
    )


def _when(text: str) -> datetime:
    """An ISO time of a reply's read (they return times as text: cheaper to carry over Bolt than temporals)."""
    parsed = datetime.fromisoformat(text)
    return parsed if parsed.tzinfo is UTC else utc(parsed)


def _maybe_when(text: str | None) -> datetime | None:
    return None if text is None else _when(text)


def search_patterns(words: Sequence[str], rarity: bool, passage: bool = True) -> dict[str, Any]:
    """The recalled searches' parameters: their Java regexes, `words`, one each, and `pattern`, any of them;
    whether candidates are preselected by the rarity of the words they hold, and whether a candidate scores the
    words of the messages next to it too."""
    return {
        "words": [_WHOLE_WORD.format("(?:" + re.escape(w) + ")") for w in words],
        "pattern": _WHOLE_WORD.format("(?:" + "|".join(re.escape(w) for w in words) + ")"),
        "rarity": rarity,
        "passage": passage,
    }


def _recalled(found: list[dict[str, Any]]) -> Recalled:
    """A recalled search's rows (context/recalled.cypher): the matches best first (score, then newest), and
    the messages next to them, each with its match's id."""
    matches = [(m["score"], rows.message_view(m)) for m in found if m.get("score") is not None]
    matches.sort(key=lambda sv: (-sv[0], -sv[1].created_at.timestamp(), sv[1].id))
    return Recalled(
        matches=tuple(view for _, view in matches),
        around=tuple((m["near"], rows.message_view(m)) for m in found if m.get("near") is not None),
    )


async def _no_rows() -> list[dict[str, Any]]:
    return []
