"""Reads past the first ones of `recall.gather`: the second hop around what a message names, and the
turns the best facts were drawn from.

- **Second hop** (`second_hop`): "where does Bob's sister work?" names Bob; the facts that answer it are
  about an entity related to Bob (his sister) and share few words with the question.
  They join the related facts, ranked with the rest.
- **Evidence turns** (`with_evidence`): the best related facts bring the messages they were drawn from
  and the messages around them in their window (the question a turn answers, the answer to it), as
  recalled messages after those the full-text search found; the budget trims them first.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

import recall.assemble
from common.text import MENTION, keywords
from graph.models import FactView, MessageView
from graph.store import GraphStore
from recall.assemble import ContextRequest, Gathered, considered_facts
from recall.ranking import rank_facts

HOP_FACTS = 20  # facts of the second hop read, before ranking
EVIDENCE_FACTS = 5  # the best related facts whose turns are read
EVIDENCE_SPAN = 1  # neighbours each side of a source turn in its window


async def second_hop(store: GraphStore, req: ContextRequest, *, entity_keys: list[str], skip_ids: list[str]) -> list[FactView]:
    """Facts about the entities related to the members and entities the message names."""
    return await store.neighbourhood_facts(
        req.guild_id,
        mentioned_ids=[u for u in req.mentioned_user_ids if u not in skip_ids],
        names=keywords(MENTION.sub(" ", req.message_text)),
        entity_keys=entity_keys,
        skip_ids=skip_ids,
        now=req.at,
        limit=HOP_FACTS,
        channel_id=req.channel_id,
    )


async def with_evidence(store: GraphStore, req: ContextRequest, gathered: Gathered) -> Gathered:
    """`gathered` with the source turns (and their neighbours) of its best related facts appended to the
    recalled messages, best fact first, each turn once; and, read beside them, the messages each related fact
    the context considers was drawn from (`Gathered.drawn`: a recalled message whose fact is kept gives way).
    The author's facts are left out of that read for its cost (90 facts cost about 7 ms of CPU at 100,000 facts,
    bench.scale's data); context/facts.cypher returning each fact's sources would make the read unneeded."""
    prior = list({f.uuid: f for source in gathered.related for f in source}.values())
    best = [f.uuid for f in rank_facts(gathered.query, prior, gathered.searched, gathered.period)[:EVIDENCE_FACTS]]
    related = considered_facts(gathered)[1] if recall.assemble.REDUNDANT else []
    found, drawn = await asyncio.gather(
        store.evidence_messages(req.guild_id, req.channel_id, best, at=req.at, span=EVIDENCE_SPAN),
        store.drawn_from(req.guild_id, [f.uuid for f in related]),
    )
    gathered = replace(gathered, drawn=drawn)
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

    extra = [message for _, _, message in found if fresh(message)]
    if not extra:
        return gathered
    recalled = [*gathered.recalled, *extra]
    names = dict(gathered.names)
    names.update({m.author_id: m.author_name for m in recalled})
    return replace(gathered, recalled=recalled, names=names)
