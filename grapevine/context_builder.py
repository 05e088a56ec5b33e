"""Gathers the reply context from the graph: Cypher traversals around the author, the people and things a
message names, full-text search over the channel's earlier messages, and the conversation it belongs to;
`grapevine.context.assemble` orders and trims it.

Every read is scoped to the request's guild. When the graph cannot be reached at all, `build_context`
raises `GraphUnavailable` so the bot can still answer, without memory; any other error propagates.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Coroutine
from datetime import timedelta
from typing import Any

from neo4j.exceptions import DatabaseUnavailable, ServiceUnavailable, SessionExpired

from graph.models import FactView, Message, MessageView, User
from graph.store import GraphStore
from graph.text import keywords, name_key
from grapevine.context import ContextRequest, Gathered, ReplyContext, assemble
from grapevine.ranking import rank_messages
from grapevine.settings import ContextSettings

AUTHOR_FACTS = 50
SOURCE_FACTS = 20  # per related source: people, entities, linked entities, full text, vectors
RANKED_POOL = 200  # facts about named people and entities read, then ranked by relevance to the message
CHAIN_DEPTH = 41  # the reply_chain query follows at most 40 hops: the message and 40 ancestors
MAX_NAME_WORDS = 3
MAX_NAME_CANDIDATES = 60
_WORD = re.compile(r"\w+", re.UNICODE)
_MENTION = re.compile(r"<@!?(\d+)>")


class GraphUnavailable(RuntimeError):
    """The graph store cannot be reached; answer without memory."""


UNREACHABLE = (ServiceUnavailable, SessionExpired, DatabaseUnavailable, OSError)


Embed = Callable[[str], list[float]]


async def build_context(store: GraphStore, req: ContextRequest, settings: ContextSettings, *,
                        embed: Embed | None = None) -> ReplyContext:
    """The reply context for one message: gathered from the guild's graph, assembled within budget."""
    try:
        gathered = await gather(store, req, settings, embed=embed)
    except UNREACHABLE as exc:
        raise GraphUnavailable(f"the graph store cannot be reached: {type(exc).__name__}: {exc}") from exc
    return assemble(gathered, settings)


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


def name_candidates(text: str) -> list[str]:
    """Runs of one to three words of a message: what an entity name or alias could be ("the celtics")."""
    words = [w for w in _WORD.findall(_MENTION.sub(" ", text).casefold()) if not w.isdigit()]
    found: dict[str, None] = {}
    for size in range(1, MAX_NAME_WORDS + 1):
        for i in range(len(words) - size + 1):
            key = name_key(" ".join(words[i:i + size]))
            if key and (size > 1 or key in keywords(key)):  # a lone stop word names nothing
                found.setdefault(key, None)
    return list(found)[:MAX_NAME_CANDIDATES]


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


def _view(message: Message, author: User) -> MessageView:
    return MessageView(id=message.id, channel_id=message.channel_id, author_id=message.author_id,
                       author_name=author.display_name, author_is_bot=author.is_bot, content=message.content,
                       created_at=message.created_at, reply_to_id=message.reply_to_id)


async def _recent(store: GraphStore, req: ContextRequest, limit: int) -> list[MessageView]:
    if limit <= 0:
        return []
    found = [_view(m, u) for m, u in await store.messages_before(req.channel_id, req.at, limit) if m.guild_id == req.guild_id]
    return [m for m in found if keep_message(m, req)]


async def _recalled(store: GraphStore, req: ContextRequest, limit: int) -> list[MessageView]:
    """Earlier messages of the channel matching the message, best first (lexical relevance, then the index's)."""
    if limit <= 0 or not req.message_text.strip():
        return []
    found = await store.search_messages(req.guild_id, req.channel_id, req.message_text, before=req.at, limit=limit)
    return rank_messages(req.message_text, [m for m in found if keep_message(m, req)])


async def _conversation(store: GraphStore, req: ContextRequest, settings: ContextSettings) -> tuple[str | None, list[MessageView]]:
    if req.in_thread:
        return "thread", await _recent(store, req, settings.thread_messages)
    if req.reply_to_id and settings.reply_chain_messages > 0:
        chain = await store.reply_chain(req.guild_id, req.reply_to_id, limit=CHAIN_DEPTH)
        kept = [m for m in chain if m.channel_id == req.channel_id and keep_message(m, req)]
        return "reply_chain", bound_chain(kept, req, settings)
    return None, []


async def _facts(store: GraphStore, req: ContextRequest, *, user_ids: list[str] = (),  # type: ignore[assignment]
                 entity_uuids: list[str] = (), limit: int = SOURCE_FACTS) -> list[FactView]:  # type: ignore[assignment]
    if not user_ids and not entity_uuids:
        return []
    return await store.facts_about(req.guild_id, user_ids=list(user_ids), entity_uuids=list(entity_uuids),
                                   now=req.at, limit=limit)


async def _nearest(store: GraphStore, req: ContextRequest, embed: Embed | None) -> list[FactView]:
    if embed is None or not req.message_text.strip():
        return []
    vector = await asyncio.to_thread(embed, req.message_text)
    return await store.nearest_facts(req.guild_id, list(vector), now=req.at, limit=SOURCE_FACTS)


async def gather(store: GraphStore, req: ContextRequest, settings: ContextSettings, *,
                 embed: Embed | None = None) -> Gathered:
    """Every read for one reply, concurrently where independent; all scoped to `req.guild_id`."""
    text = req.message_text
    skip = {req.author_id, req.bot_user_id}
    first = await _concurrently(
        author=store.users([req.author_id]),
        author_facts=_facts(store, req, user_ids=[req.author_id], limit=AUTHOR_FACTS),
        members=store.members_by_name(req.guild_id, keywords(text)),
        searched=store.search_entities(req.guild_id, text),
        named=store.entities_by_names(req.guild_id, name_candidates(text)),
        linked=store.linked_entities(req.guild_id, req.author_id),
        full_text=store.search_facts(req.guild_id, text, now=req.at, limit=SOURCE_FACTS),
        nearest=_nearest(store, req, embed),
        summaries=store.channel_context(req.guild_id, req.channel_id, episodes=settings.channel_episodes, messages=0),
        channel=_recent(store, req, settings.channel_messages),
        conversation=_conversation(store, req, settings),
        recalled=_recalled(store, req, settings.recalled_messages),  # the one read of the "recalled" part
    )
    people = list(dict.fromkeys([*req.mentioned_user_ids, *(u.id for u in first["members"] if not u.is_bot)]))
    people = [p for p in people if p not in skip]
    entities = list(dict.fromkeys(e.uuid for e in [*first["searched"], *first["named"]]))
    second = await _concurrently(
        people=_facts(store, req, user_ids=people, limit=RANKED_POOL),
        entities=_facts(store, req, entity_uuids=entities, limit=RANKED_POOL),
        linked=_facts(store, req, entity_uuids=[e.uuid for e, _ in first["linked"]]),
    )

    kind, thread = first["conversation"]
    messages = [*first["channel"], *thread, *first["recalled"]]
    names = {m.author_id: m.author_name for m in messages}
    unknown = sorted({i for m in messages for i in _MENTION.findall(m.content)} - names.keys())
    if unknown:
        names.update({u.id: u.display_name for u in await store.users(unknown)})
    return Gathered(
        author_id=req.author_id,
        author_name=first["author"][0].display_name if first["author"] else "the author",
        author_facts=first["author_facts"],
        related=[second["people"], second["entities"], second["linked"], first["full_text"], first["nearest"]],
        query=text,
        searched=[[f.uuid for f in first["full_text"]], [f.uuid for f in first["nearest"]]],
        recalled=first["recalled"],
        summaries=sorted((at, s) for at, s in first["summaries"].summaries if at is not None),
        channel_messages=first["channel"],
        thread_messages=thread,
        thread_kind=kind,  # type: ignore[arg-type]
        names=names,
        bot_user_id=req.bot_user_id,
    )
