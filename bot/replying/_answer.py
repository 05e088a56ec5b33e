"""One answer: the reply context from the graph, one LLM call, the text split for Discord.

The graph being down costs the answer its memory, not the answer; the LLM being down gets a short
apology instead of silence.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

import discord

from bot.convert import place_of, reply_to_id
from bot.sending import split_message
from bot.services import Services
from bot.sources import can_open, with_sources
from common.events import emit
from llm.errors import LLMError
from recall.assemble import ContextRequest, ReplyContext, build_reply_messages
from recall.gather import GraphUnavailable, build_context

LLM_DOWN = "My memory's fine but my brain (the LLM) is unreachable right now; try again in a bit."
EMPTY_REPLY = "…"


@dataclass
class Answer:
    chunks: list[str]
    outcome: str  # "ok", "no_memory" (answered without the graph) or "llm_unavailable"
    context: ReplyContext


def no_memory() -> ReplyContext:
    return ReplyContext(parts=[], total_tokens=0, fact_uuids=set(), message_ids=set())


def context_request(message: discord.Message, text: str, me: discord.abc.User) -> ContextRequest:
    place = place_of(message, me.id)
    assert place is not None, "a message from someone else always has a place"
    return ContextRequest(
        guild_id=place.guild.id,
        channel_id=place.channel.id,
        author_id=str(message.author.id),
        message_text=text,
        message_id=str(message.id),
        at=message.created_at,
        mentioned_user_ids=[str(u.id) for u in message.mentions if u.id != me.id and not u.bot],
        in_thread=isinstance(message.channel, discord.Thread),
        reply_to_id=reply_to_id(message),
        bot_user_id=str(me.id),
    )


async def gather_context(services: Services, request: ContextRequest) -> tuple[ReplyContext, bool]:
    """The context and whether memory was available; emits `context_built` (sizes only, no content)."""
    started = time.perf_counter()
    memory = True
    try:
        settings = services.settings
        context = await build_context(services.store, request, settings.context, tuning=settings.recall, embed=services.embed)
    except GraphUnavailable as exc:
        emit("bot", "graph_unavailable", level=logging.WARNING, guild_id=request.guild_id, error=str(exc)[:300])
        context, memory = no_memory(), False
    except Exception as exc:  # noqa: BLE001 - a broken read must not cost the member their answer
        emit(
            "bot",
            "context_failed",
            level=logging.ERROR,
            guild_id=request.guild_id,
            error=type(exc).__name__,
            code=getattr(exc, "code", None),  # the engine's error code; its message may quote the reply's words
            content=str(exc)[:300],
        )
        context, memory = no_memory(), False
    emit(
        "bot",
        "context_built",
        guild_id=request.guild_id,
        channel_id=request.channel_id,
        message_id=request.message_id,
        memory=memory,
        total_tokens=context.total_tokens,
        facts=len(context.fact_uuids),
        messages=len(context.message_ids),
        parts={p.name: {"tokens": p.tokens, "items": p.items, "trimmed": p.trimmed} for p in context.parts},
        latency_ms=round((time.perf_counter() - started) * 1000),
    )
    return context, memory


async def compose(services: Services, message: discord.Message, text: str, me: discord.abc.User) -> Answer:
    request = context_request(message, text, me)
    context, memory = await gather_context(services, request)
    if services.llm is None:
        return Answer([LLM_DOWN], "llm_unavailable", context)
    prompt = build_reply_messages(context, message.author.display_name, text or "(they only mentioned you)", me.display_name)
    try:
        reply = await services.llm.chat(
            prompt,
            purpose="reply",
            tags={"reply_to": str(message.id), "guild_id": str(message.guild.id) if message.guild else "dm"},
        )
    except LLMError as exc:
        emit("bot", "reply_llm_failed", level=logging.WARNING, outcome=exc.outcome, error=str(exc)[:300])
        return Answer([LLM_DOWN], "llm_unavailable", context)
    if reply.strip():
        reply = with_sources(
            reply, context, request.guild_id, message.author.display_name, can_open(message.guild, message.author)
        )
    return Answer(split_message(reply) or [EMPTY_REPLY], "ok" if memory else "no_memory", context)
