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
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from common.settings import RecallTuning
from common.text import keywords, lucene_query
from graph import rows
from graph.keys import channel_time
from graph.models import Conversation, FactView, MessageView, Recalled, iso, utc
from graph.store import GraphStore

REPLY_FACT_SOURCES = ("author", "people", "entities", "linked", "hop")  # context/facts.cypher
_WHOLE_WORD = r"(?isU).*\b{}\b.*"  # a Java regex: the content holds the word as a whole word, in any case


@dataclass(frozen=True)
class SecondRound:
    """What a reply's second read gives (`second_round`)."""

    evidence: list[tuple[int, bool, MessageView]] = field(default_factory=list)  # (fact rank, is the source, message)
    matched: list[FactView] = field(default_factory=list)  # facts drawn from the recalled messages


async def reply_facts(
    store: GraphStore,
    guild_id: str,
    *,
    author_id: str,
    mentioned_ids: list[str],
    names: list[str],
    entity_keys: list[str],
    text: str,
    skip_ids: list[str],
    now: datetime,
    author_limit: int = 50,
    pool: int = 20,
    limit: int = 20,
    hop_limit: int = 20,
    channel_id: str | None = None,
    tuning: RecallTuning = RecallTuning(),
) -> dict[str, list[FactView]]:
    """Every fact a reply draws on, by source, in one read: "author" (facts about the author, up to
    `author_limit`), "people" (members mentioned or named by `names`, casefolded) and "entities" (named
    by their keys or whose names match `text`), up to `pool` each, "linked" (entities linked to the author),
    up to `limit`, and "hop" (entities related to the named members and entities), up to `hop_limit`. Each
    source is ranked most important and newest first. Every fact read holds at `now`; of its times
    only valid_at and the reporters' are read (the reply shows no other). With `channel_id`, only facts
    and reporters that may be recalled in that channel (graph/channels.py)."""
    found = await store.runner.read_plain(
        "context/facts",
        guild_id=guild_id,
        channel_id=channel_id,
        author_id=author_id,
        mentioned_ids=mentioned_ids,
        names=sorted({n.casefold() for n in names if n}),
        keys=sorted({k for k in entity_keys if k}),
        query=lucene_query(text),
        skip_ids=skip_ids,
        now=utc(now),
        author_limit=author_limit,
        pool=pool,
        limit=limit,
        hop_limit=hop_limit,
        hits=limit * tuning.search_hits,
    )
    by_source: dict[str, list[FactView]] = {s: [] for s in REPLY_FACT_SOURCES}
    for item in found[0]["facts"] if found else []:
        by_source[item["source"]].append(reply_fact(item))
    return {source: sorted(facts, key=rows.importance_then_newest) for source, facts in by_source.items()}


async def second_round(
    store: GraphStore,
    guild_id: str,
    channel_id: str,
    *,
    uuids: list[str],
    message_ids: list[str],
    at: datetime,
    span: int = 1,
    limit: int = 40,
) -> SecondRound:
    """A reply's second round in one read (context/second_round.cypher): the channel's messages the facts
    `uuids` were drawn from with their `span` neighbours each side in their episode, before `at`, as (rank of
    the fact in `uuids`, whether it is the source itself, message); and the facts drawn from `message_ids`
    (messages the reply recalled, best first) that hold at `at` and may be recalled in `channel_id`."""
    if not uuids and not message_ids:
        return SecondRound()
    found = await store.runner.read_plain(
        "context/second_round",
        guild_id=guild_id,
        channel_id=channel_id,
        uuids=uuids,
        ids=message_ids,
        now=utc(at),
        span=span,
        limit=limit,
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
) -> Conversation:
    """The conversation a reply belongs to, in three concurrent reads: the author, the channel's last episodes
    before `at` (summaries of the extracted ones), the channel's last messages before `at` (from those
    episodes and the messages not yet in one), the chain `reply_to_id` replies to, and up to `recall`
    of the channel's messages before `at` whose content matches the words of `text`, best first, the best
    `tuning.neighbour_matches` with the messages next to them; and as many of the messages of the channel's
    last `older_episodes` windows that ended before `tuning.span` (`older`: a quiet channel's older talk)."""
    words = keywords(text) if recall > 0 else []  # no words, no search
    patterns = search_patterns(words, tuning.rarity, tuning.passage)
    near = tuning.neighbour_matches
    runner = store.runner
    talk = runner.read_plain(
        "context/conversation",
        guild_id=guild_id,
        channel_id=channel_id,
        author_id=author_id,
        at=utc(at),
        reply_to_id=reply_to_id,
        skip_id=skip_message_id,
        episodes=episodes,
        messages=messages,
        chain=chain,
    )
    # the recalled messages, a statement of its own run beside it (context/recalled.cypher says why): among
    # the channel's last `tuning.span_messages` messages of `tuning.span` (Java regex)
    search = (
        runner.read_plain(
            "context/recalled",
            guild_id=guild_id,
            recall=recall,
            near=near,
            **patterns,
            recall_from=channel_time(channel_id, at - tuning.span),
            recall_to=channel_time(channel_id, at),
            recall_window=tuning.span_messages,
        )
        if words
        else _no_rows()
    )
    # a quiet channel's older windows, a statement of its own too (context/recalled_before.cypher says why)
    older = (
        runner.read_plain(
            "context/recalled_before",
            guild_id=guild_id,
            channel_id=channel_id,
            before=utc(at - tuning.span),
            episodes=older_episodes,
            recall=recall,
            near=near,
            **patterns,
        )
        if words and older_episodes > 0
        else _no_rows()
    )
    found, searched, earlier = await asyncio.gather(talk, search, older)
    row = found[0]
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
