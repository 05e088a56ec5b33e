"""The second round of a reply's reads, after `recall.gather`'s: the turns the best facts were drawn from, and the
facts drawn from the messages the reply recalled.

- **Second hop** (read by context/facts.cypher, `RecallTuning.hop_facts` of them): "where does Bob's sister work?"
  names Bob; the facts that answer it are about an entity related to Bob (his sister) and share few words with the
  question. They join the related facts, ranked with the rest.
- **Evidence turns** (`with_evidence`): the best related facts bring the messages they were drawn from
  and the messages around them in their window (the question a turn answers, the answer to it), as
  recalled messages after those the search found; the budget trims them first.
- **Matched facts**: the facts drawn from the recalled messages that share a word with the message, read beside the
  evidence turns: how a reply finds facts by their words, since facts' text is not searched in full (a full-text
  search scores every posting of each word, so its cost grows with the guild).
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from dataclasses import replace
from typing import Any

from common.settings import RecallTuning
from graph.models import MessageView
from graph.reads import context as context_reads
from graph.reads.context import SecondRound, passage_turns
from graph.reads.facts import users_by_id
from graph.store import GraphStore
from recall.assemble import ContextRequest, Gathered
from recall.names import disambiguate
from recall.ranking import facts_share_words, member_words, passage_turns_order, rank_facts


def second_read_facts(gathered: Gathered, tuning: RecallTuning) -> list[str]:
    """The uuids of the best related facts of the first round, whose turns the second read brings."""
    prior = list({f.uuid: f for source in gathered.related for f in source}.values())
    ranked = rank_facts(gathered.query, prior, gathered.searched, gathered.period, tuning)
    return [f.uuid for f in ranked[: tuning.evidence_facts]]


def second_read(
    store: GraphStore, req: ContextRequest, gathered: Gathered, tuning: RecallTuning, best: list[str] | None = None
) -> Coroutine[Any, Any, SecondRound]:
    """A reply's second read (context/second_round.cypher), for the first round's `gathered`: the turns of its best
    related facts (`best`, when the caller ranked them: `second_read_facts`), and the facts drawn from its recalled
    messages."""
    best = second_read_facts(gathered, tuning) if best is None else best
    recalled_ids = [m.id for m in gathered.recalled] if tuning.matched_facts else []
    return context_reads.second_round(
        store,
        context_reads.RoundRequest(
            req.guild_id, req.channel_id, uuids=best, message_ids=recalled_ids, at=req.at,
            span=tuning.evidence_span, limit=tuning.matched_facts,
        ),
    )  # fmt: skip


async def with_evidence(
    store: GraphStore, req: ContextRequest, gathered: Gathered, tuning: RecallTuning = RecallTuning()
) -> Gathered:
    """`gathered` with the source turns (and their neighbours) of its best related facts appended to the
    recalled messages, best fact first, each turn once; the facts drawn from its recalled messages that share a
    word with the message as one more source of related facts; and `Gathered.drawn`, the messages each fact was
    drawn from (a recalled message whose fact is kept gives way), as the facts' reads returned them; and, over
    the facts of both rounds, reporters who share a display name named apart (`recall.names`)."""
    best = second_read_facts(gathered, tuning)
    matches = [m for m in gathered.recalled if m.id not in gathered.anchors]
    second, around = await asyncio.gather(
        second_read(store, req, gathered, tuning, best),
        passage_turns(store, req.guild_id, req.channel_id, ids=[m.id for m in matches], at=req.at,
                      reach=tuning.passage_reach),
    )  # fmt: skip
    if around:
        gathered = _by_passages(req, gathered, matches, around, tuning)
    found, matched = second.evidence, second.matched
    # like the full-text hits they replace, only facts that share a word with the message itself
    if matched:
        shared = facts_share_words(gathered.query, matched, tuning)
        matched = [f for f, holds in zip(matched, shared) if holds]
    # every fact of both rounds at once, so reporters who share a name are told apart wherever they come from
    # ("Alex (@alexk)", "Alex (@alexm)")
    *related, author_facts = await disambiguate(
        [*gathered.related, *([matched] if matched else []), gathered.author_facts],
        lambda ids: users_by_id(store, ids, req.guild_id),
    )
    drawn = {f.uuid: f.sources for f in [*author_facts, *(f for source in related for f in source)] if f.sources}
    gathered = replace(gathered, related=related, author_facts=author_facts, drawn=drawn)
    known = {m.id for m in gathered.recalled}

    def fresh(message: MessageView) -> bool:
        if (
            message.id not in known
            and message.id != req.message_id
            and (not message.author_is_bot or message.author_id == req.bot_user_id)
        ):
            known.add(message.id)
            return True
        return False

    anchors = dict(gathered.anchors)
    extra = []
    for rank, _, message in found:
        if fresh(message):
            extra.append(message)
            if 0 <= rank < len(best):
                anchors[message.id] = best[rank]  # a fact's source turn or its neighbour comes with the fact
    if not extra:
        return gathered
    recalled = [*gathered.recalled, *extra]
    names = dict(gathered.names)
    names.update({m.author_id: m.author_name for m in recalled})
    return replace(gathered, recalled=recalled, names=names, anchors=anchors)


def _by_passages(
    req: ContextRequest,
    gathered: Gathered,
    matches: list[MessageView],
    around: dict[str, list[tuple[int, MessageView]]],
    tuning: RecallTuning,
) -> Gathered:
    """`gathered` with its recalled messages in the order of their passages (`passage_turns_order`): the best
    passages' turns first, each anchored to its match; the turns the search brought that no passage holds after them."""

    def kept(message: MessageView) -> bool:
        return message.id != req.message_id and (not message.author_is_bot or message.author_id == req.bot_user_id)

    around = {match: [(d, m) for d, m in turns if kept(m)] for match, turns in around.items()}
    who = member_words([m.author_name for m in matches]) if tuning.speaker_blind else frozenset()
    ordered = passage_turns_order(gathered.query, matches, around, who, tuning)
    anchors = dict(gathered.anchors)
    for message, match in ordered:
        if message.id != match and message.id not in anchors:
            anchors[message.id] = match
    placed = {m.id for m, _ in ordered}
    recalled = [m for m, _ in ordered] + [m for m in gathered.recalled if m.id not in placed]
    names = dict(gathered.names)
    names.update({m.author_id: m.author_name for m in recalled})
    return replace(gathered, recalled=recalled, anchors=anchors, names=names)
