"""Reads past the first ones of `recall.gather`: the second hop around what a message names, and the
turns the best facts were drawn from.

- **Second hop** (read by context/facts.cypher, `recall.gather.HOP_FACTS` of them): "where does Bob's sister work?" names Bob;
  the facts that answer it are about an entity related to Bob (his sister) and share few words with the question.
  They join the related facts, ranked with the rest.
- **Evidence turns** (`with_evidence`): the best related facts bring the messages they were drawn from
  and the messages around them in their window (the question a turn answers, the answer to it), as
  recalled messages after those the full-text search found; the budget trims them first.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

from graph.models import MessageView
from graph.store import GraphStore
from recall.assemble import ContextRequest, Gathered
from recall.ranking import bm25_scores, fact_document, rank_facts

EVIDENCE_FACTS = 5  # the best related facts whose turns are read
EVIDENCE_SPAN = 1  # neighbours each side of a source turn in its window
# The best recalled messages whose neighbours in their window are read (context/neighbours.cypher). Off: measured on
# LoCoMo (with embeddings), 5 matches add 2.0 points of evidence without a budget for 160 more tokens gathered (10
# matches: 3.4 points for 380 tokens) and nothing at 500-2,000 tokens, while the read cost about 24 ms more CPU per
# context build at 100,000 facts (bench.scale, against 49 ms).
NEIGHBOUR_MATCHES = 0
NEIGHBOUR_SPAN = 1
# Where neighbours rank: after every match (so a budget trims them first), or each right after its match (measured:
# +2.4 points at 2,000 tokens, but -1.6 on multi-hop at 1,000, as they push out weaker matches and facts).
NEIGHBOURS_AFTER = False


# Facts drawn from the recalled messages that share a word with the message, read beside the evidence turns: how a
# reply finds facts by their words now that facts' text is not searched in full (issue 20); they join the related
# facts, ranked with the rest.
MATCHED_FACTS = 40


async def _none() -> list[tuple[int, MessageView]]:
    return []


async def with_evidence(store: GraphStore, req: ContextRequest, gathered: Gathered) -> Gathered:
    """`gathered` with the source turns (and their neighbours) of its best related facts appended to the
    recalled messages, best fact first, each turn once; and the facts drawn from its recalled messages as one more
    source of related facts."""
    prior = list({f.uuid: f for source in gathered.related for f in source}.values())
    best = [f.uuid for f in rank_facts(gathered.query, prior, gathered.searched, gathered.period)[:EVIDENCE_FACTS]]
    matches = [m.id for m in gathered.recalled[:NEIGHBOUR_MATCHES]]
    recalled_ids = [m.id for m in gathered.recalled] if MATCHED_FACTS else []
    found, around, matched = await asyncio.gather(
        store.evidence_messages(req.guild_id, req.channel_id, best, at=req.at, span=EVIDENCE_SPAN),
        store.neighbour_messages(req.guild_id, req.channel_id, matches, at=req.at, span=NEIGHBOUR_SPAN)
        if matches and NEIGHBOUR_SPAN
        else _none(),
        store.matched_facts(req.guild_id, req.channel_id, recalled_ids, now=req.at, limit=MATCHED_FACTS),
    )
    # like the full-text hits they replace, only facts that share a word with the message itself
    matched = [f for f, score in zip(matched, bm25_scores(gathered.query, [fact_document(f) for f in matched])) if score > 0]
    if matched:
        gathered = replace(gathered, related=[*gathered.related, matched])
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

    near: dict[int, list[MessageView]] = {}
    for rank, message in around:
        if fresh(message):
            near.setdefault(rank, []).append(message)
    extra = [message for _, _, message in found if fresh(message)]
    if NEIGHBOURS_AFTER:
        recalled = [x for i, m in enumerate(gathered.recalled) for x in (m, *near.get(i, []))]
    else:
        recalled = [*gathered.recalled, *(m for i in sorted(near) for m in near[i])]
    if not extra and not near:
        return gathered
    recalled += extra
    names = dict(gathered.names)
    names.update({m.author_id: m.author_name for m in recalled})
    return replace(gathered, recalled=recalled, names=names)
