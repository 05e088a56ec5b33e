"""Gathers the reply context from the graph: Cypher traversals around the author, the people and things a
message names, and the conversation it belongs to; `recall.assemble.assemble` orders and trims it.

Every read is scoped to the request's guild. When the graph cannot be reached at all, `build_context`
raises `GraphUnavailable` so the bot can still answer, without memory; any other error propagates.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Coroutine
from datetime import timedelta
from typing import Any

from common.settings import ContextSettings, RecallTuning
from common.text import MENTION, keywords, name_key
from graph.models import Conversation, FactView, MessageView
from graph.reads import context as context_reads
from graph.reads import fact_model
from graph.reads.facts import users_by_id
from graph.store import GraphStore
from graph.unreachable import UNREACHABLE
from recall.assemble import ContextRequest, Gathered, ReplyContext, assemble
from recall.expand import with_evidence
from recall.ranking import rank_messages
from recall.sources import citable
from recall.when import named_period

_WORD = re.compile(r"\w+", re.UNICODE)


class GraphUnavailable(RuntimeError):
    """The graph store cannot be reached; answer without memory."""


Embed = Callable[[str], list[float]]


async def build_context(
    store: GraphStore,
    req: ContextRequest,
    settings: ContextSettings,
    *,
    tuning: RecallTuning = RecallTuning(),
    embed: Embed | None = None,
) -> ReplyContext:
    """The reply context for one message: gathered from the guild's graph, assembled within budget."""
    try:
        with fact_model.one_count():  # the guild's change count read once, by the fact read, for every read from memory
            gathered = await with_evidence(store, req, await gather(store, req, settings, tuning=tuning, embed=embed), tuning)
    except UNREACHABLE as exc:
        raise GraphUnavailable(f"the graph store cannot be reached: {type(exc).__name__}: {exc}") from exc
    context = assemble(gathered, settings, tuning)
    context.citable = citable(gathered, context)  # what the answer may cite (recall/sources.py)
    return context


def _leaves(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in _leaves(inner)]
    return [error]


async def _concurrently(**work: Coroutine[Any, Any, Any]) -> dict[str, Any]:
    """Run reads together; the first failure cancels the rest and is raised as itself (not as a group),
    an unreachable store taking precedence."""
    try:
        async with asyncio.TaskGroup() as tg:
            tasks = {name: tg.create_task(coro) for name, coro in work.items()}
    except BaseExceptionGroup as group:
        leaves = _leaves(group)
        raise next((e for e in leaves if isinstance(e, UNREACHABLE)), leaves[0]) from None
    return {name: task.result() for name, task in tasks.items()}


def name_candidates(text: str, tuning: RecallTuning = RecallTuning()) -> list[str]:
    """Runs of one to three words of a message: what an entity name or alias could be ("the celtics")."""
    words = [w for w in _WORD.findall(MENTION.sub(" ", text).casefold()) if not w.isdigit()]
    found: dict[str, None] = {}
    for size in range(1, tuning.name_words + 1):
        for i in range(len(words) - size + 1):
            key = name_key(" ".join(words[i : i + size]))
            if key and (size > 1 or key in keywords(key)):  # a lone stop word names nothing
                found.setdefault(key, None)
    return list(found)[: tuning.name_candidates]


def keep_message(msg: MessageView, req: ContextRequest) -> bool:
    """Not the message being answered, and no other bot's message (the bot's own are kept)."""
    return msg.id != req.message_id and (not msg.author_is_bot or msg.author_id == req.bot_user_id)


def bound_chain(chain: list[MessageView], req: ContextRequest, settings: ContextSettings) -> list[MessageView]:
    """The newest messages of a reply chain within the message, character and age bounds; oldest first."""
    oldest = req.at - timedelta(minutes=settings.reply_chain_minutes)
    kept: list[MessageView] = []
    chars = 0
    for msg in sorted(chain, key=lambda m: (m.created_at, m.id), reverse=True):
        if len(kept) >= settings.reply_chain_messages or msg.created_at < oldest:
            break
        if chars + len(msg.content) > settings.reply_chain_chars:
            break
        kept.append(msg)
        chars += len(msg.content)
    return kept[::-1]


def around(
    recalled: list[MessageView],
    near: list[tuple[str, MessageView]],
    req: ContextRequest,
    matches: int,
    anchors: dict[str, str] | None = None,
) -> list[MessageView]:
    """The messages just before and after the best `matches` recalled messages (the question a matching turn
    answers, the answer to it), best match first, each once and none recalled already: they rank after every
    match, so a budget trims them first. Each one's match is written to `anchors` (message id -> match id)."""
    best = {m.id: rank for rank, m in enumerate(recalled[:matches])}
    known = {m.id for m in recalled}
    out: list[MessageView] = []
    ordered = sorted(((best[match], match, m) for match, m in near if match in best), key=lambda r: (r[0], r[2].created_at))
    for _, match, message in ordered:
        if message.id not in known and keep_message(message, req):
            known.add(message.id)
            out.append(message)
            if anchors is not None:
                anchors[message.id] = match
    return out


async def _embedded(req: ContextRequest, embed: Embed | None) -> tuple[float, ...] | None:
    """The message's embedding, None without embeddings or words."""
    if embed is None or not req.message_text.strip():
        return None
    return tuple(await asyncio.to_thread(embed, req.message_text))


async def _nearest(
    store: GraphStore, req: ContextRequest, vector: tuple[float, ...] | None, tuning: RecallTuning
) -> list[FactView]:
    if vector is None:
        return []
    return await context_reads.nearest_facts(
        store, req.guild_id, list(vector), now=req.at, limit=tuning.source_facts, channel_id=req.channel_id
    )


def _chain_wanted(req: ContextRequest, settings: ContextSettings) -> bool:
    return bool(req.reply_to_id) and not req.in_thread and settings.reply_chain_messages > 0


def fact_read(
    store: GraphStore,
    req: ContextRequest,
    tuning: RecallTuning,
    *,
    statement: bool = False,
    vector: tuple[float, ...] | None = None,
) -> Coroutine[Any, Any, dict[str, list[FactView]]]:
    """A reply's read of the facts of every source: from the process's read model (graph/reads/fact_model.py), or
    with `statement` in one query (context/facts.cypher), as it was read before the model."""
    text = req.message_text
    skip = [i for i in (req.author_id, req.bot_user_id) if i]
    read = context_reads.reply_facts_read if statement else context_reads.reply_facts
    asked = context_reads.FactRequest(
        req.guild_id,
        author_id=req.author_id,
        mentioned_ids=[u for u in req.mentioned_user_ids if u not in skip],
        names=keywords(text),
        entity_keys=name_candidates(text, tuning),
        text=text,
        skip_ids=skip,
        now=req.at,
        author_limit=tuning.author_facts,
        pool=tuning.ranked_pool,
        limit=tuning.source_facts,
        hop_limit=tuning.hop_facts,
        channel_id=req.channel_id,
        tuning=tuning,
        vector=vector,
    )
    return read(store, asked)


def conversation_read(
    store: GraphStore, req: ContextRequest, settings: ContextSettings, tuning: RecallTuning, *, statement: bool = False
) -> Coroutine[Any, Any, Conversation]:
    """A reply's read of the conversation around the message and the earlier messages matching it: from the
    process's read model where it holds the channel (graph/reads/talk_model.py), or with `statement` from the engine."""
    return context_reads.conversation(
        store,
        req.guild_id,
        req.channel_id,
        author_id=req.author_id,
        at=req.at,
        reply_to_id=req.reply_to_id if _chain_wanted(req, settings) else None,
        skip_message_id=req.message_id,
        episodes=max(settings.channel_episodes, tuning.message_episodes),
        messages=max(settings.channel_messages, settings.thread_messages if req.in_thread else 0),
        chain=tuning.chain_depth,
        text=req.message_text,
        recall=settings.recalled_messages,
        older_episodes=tuning.older_episodes,  # a quiet channel's matches before the recalled span
        tuning=tuning,  # the recalled span; the best matches of each search come with their neighbours (`around`)
        model=not statement,
    )


async def gather(
    store: GraphStore,
    req: ContextRequest,
    settings: ContextSettings,
    *,
    tuning: RecallTuning = RecallTuning(),
    embed: Embed | None = None,
) -> Gathered:
    """Every read for one reply, all scoped to `req.guild_id`, run together: the facts of every source in
    one query, the conversation around the message and the earlier messages matching it in another (and
    nearest facts, with embeddings)."""
    text = req.message_text
    chain_wanted = _chain_wanted(req, settings)
    vector = await _embedded(req, embed)  # the fact read draws its named members' pool by it too
    reads = await _concurrently(
        facts=fact_read(store, req, tuning, vector=vector),
        talk=conversation_read(store, req, settings, tuning),
        nearest=_nearest(store, req, vector, tuning),
    )
    talk = reads["talk"]
    facts, nearest = reads["facts"], reads["nearest"]  # reporters who share a name are told apart in `with_evidence`
    candidates = [f.uuid for source in (*facts.values(), nearest) for f in source if source is not facts["author"]]
    similar = await context_reads.similar_facts(store, req.guild_id, candidates, vector)
    recent = [m for m in talk.recent if keep_message(m, req)]
    channel = recent[-settings.channel_messages :] if settings.channel_messages > 0 else []
    kind: str | None = None
    thread: list[MessageView] = []
    if req.in_thread:
        kind, thread = "thread", recent[-settings.thread_messages :] if settings.thread_messages > 0 else []
    elif chain_wanted:
        kept = [m for m in talk.chain if m.channel_id == req.channel_id and keep_message(m, req)]
        kind, thread = "reply_chain", bound_chain(kept, req, settings)

    period = named_period(text, req.at)
    older = talk.older
    found = [m for m in [*talk.recalled, *older.matches] if keep_message(m, req)]
    recalled = rank_messages(text, found, period, tuning)[: settings.recalled_messages]
    anchors: dict[str, str] = {}
    recalled += around(recalled, [*talk.around, *older.around], req, tuning.neighbour_matches, anchors)
    messages = [*channel, *thread, *recalled]
    names = {m.author_id: m.author_name for m in messages}
    unknown = sorted({i for m in messages for i in MENTION.findall(m.content)} - names.keys())
    if unknown:
        names.update({u.id: u.display_name for u in await users_by_id(store, unknown, req.guild_id)})
    summaries = list(talk.summaries)[-settings.channel_episodes :] if settings.channel_episodes > 0 else []
    return Gathered(
        author_id=req.author_id,
        author_name=talk.author.display_name if talk.author else "the author",
        author_facts=facts["author"],
        related=[facts["people"], facts["entities"], facts["linked"], nearest, facts["hop"]],
        query=text,
        searched=[[f.uuid for f in nearest], *([similar] if similar else [])],
        recalled=recalled,
        summaries=[(at, s) for at, s in summaries if at is not None],
        channel_messages=channel,
        thread_messages=thread,
        thread_kind=kind,  # type: ignore[arg-type]  # the channel reads return only the kinds Gathered names
        names=names,
        bot_user_id=req.bot_user_id,
        period=period,
        anchors=anchors,
    )
