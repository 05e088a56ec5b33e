"""One stored window through extraction: prepared as it is sent, asked in one structured call (trimmed to fit
the model's context), resolved against its own refs and written as its episode, or failed with its reason to be
retried. `ingest.ingestor` decides when and in which order; `ingest.extraction.batch` asks for several windows in
one call and finishes each one here."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from common.clock import now_utc
from common.events import emit
from common.settings import ExtractionSettings, WindowSettings
from common.text import MENTION, keywords
from graph.models import Episode, EpisodeStatus, EpisodeWrite, Message, User
from graph.privacy.guards import optout_guard
from graph.reads.backlog import episode_by_key, episode_messages, messages_before
from graph.reads.facts import entities_by_names, facts_about, members_by_name, search_entities, users_by_id
from graph.store import GraphStore
from graph.writes.episodes import mark_episode, write_episode
from ingest.embeddings import embed_facts
from ingest.extraction.on_error import NoAnswer, OnError, answer_of
from ingest.extraction.resolution import keyed_uuids, resolve
from ingest.extraction.window_prompt import Extraction, PromptInput, RefTable, build_prompt
from ingest.windows import ClosedWindow, WindowMessage
from llm.client import StructuredLLM
from llm.errors import LLMError

TRIMS = 3  # times a prompt too long for the model's context is trimmed before its window fails
MIN_MESSAGE_CHARS = 200


@dataclass(frozen=True)
class WindowSteps:
    """A window's steps, with what they read and write: the graph, the settings, and the rules of what is sent."""

    store: GraphStore
    extraction: ExtractionSettings
    windows: WindowSettings
    rng: Callable[[], float] = random.random
    hidden: Callable[[str], bool] | None = None  # opted-out ids: their mentions in others' messages never reach the LLM
    embed: Callable[[str], list[float]] | None = None  # facts get an embedding for the vector index when embeddings are on
    outage: list[str] = field(default_factory=list)  # the windows this pass found the LLM unreachable for: parked

    async def extract(self, llm: StructuredLLM, key: str) -> EpisodeStatus:
        """The stored window alone, in one call: written as its episode, or failed (or parked as it was, when the
        LLM's circuit breaker is open). The caller holds the guild's turn."""
        prepared = await self.prepare(key)
        if isinstance(prepared, EpisodeStatus):
            return prepared
        episode, window = prepared
        inp = await self.prompt_input(window)
        started = time.perf_counter()
        answered = await answer_of(ask(llm, inp, key, episode.guild_id))
        if isinstance(answered, NoAnswer):
            if answered.then is OnError.PARK:
                emit("ingest", "extraction_parked", key=key, guild_id=episode.guild_id, reason=answered.reason[:300])
                self.outage.append(key)
                return episode.status  # not an attempt: the window waits as it was
            return await self.fail(episode, answered.name, answered.reason, tokens_of(llm, "window", key))
        answer, refs, inp = answered
        return await self.finish(episode, inp, answer, refs, tokens_of(llm, "window", key), started)

    async def prepare(self, key: str) -> tuple[Episode, ClosedWindow] | EpisodeStatus:
        """A stored window as it is sent (a hidden member's mentions masked, the channel's earlier messages
        as context), or its status when there is nothing to send: done, sampled out, or emptied."""
        episode = await episode_by_key(self.store, key)
        if episode is None or episode.status == EpisodeStatus.DONE:
            return EpisodeStatus.DONE
        if episode.status != EpisodeStatus.FAILED and self.rng() >= self.extraction.probability:
            await mark_episode(self.store, key, EpisodeStatus.SKIPPED, "sampled out by EXTRACTION_PROBABILITY")
            emit("ingest", "extraction_skipped", key=key)
            return EpisodeStatus.SKIPPED
        stored = [(without_hidden(m, self.hidden), u) for m, u in await episode_messages(self.store, key)]
        if not stored:
            await write_episode(self.store, EpisodeWrite(key=key, guild_id=episode.guild_id))
            return EpisodeStatus.DONE
        window = ClosedWindow(
            channel_id=episode.channel_id,
            guild_id=episode.guild_id,
            messages=tuple(WindowMessage(m, u) for m, u in stored),
            context=tuple(
                WindowMessage(m, u)
                for m, u in await messages_before(
                    self.store, episode.channel_id, episode.started_at, self.windows.context_messages
                )
            ),
            reason="stored",
        )
        return episode, window

    async def prompt_input(self, window: ClosedWindow) -> PromptInput:
        """The window with what the graph knows of its people and things: the members it names, their facts, the
        entities it mentions."""
        guild = window.guild_id
        text = "\n".join(wm.message.content for wm in window.messages)
        authors = set(window.participant_ids)
        words = keywords(text, limit=200)
        members = [u for u in await members_by_name(self.store, guild, words, limit=30) if u.id not in authors]
        mentioned = {m for m in MENTION.findall(text) if m not in authors} - {u.id for u in members}
        if mentioned:
            members += [u for u in await users_by_id(self.store, sorted(mentioned), guild) if not u.is_bot]
        known = {e.uuid: e for e in await search_entities(self.store, guild, text, limit=20)}
        known.update({e.uuid: e for e in await entities_by_names(self.store, guild, words)})
        people = [*window.participant_ids, *(u.id for u in members)]
        candidates = await facts_about(
            self.store, guild, user_ids=people, entity_uuids=list(known), now=window.ended_at, limit=80
        )
        return PromptInput(
            window=window,
            members=_distinct(members),
            candidates=candidates,
            known_entities=list(known.values()),
            max_facts_per_person=self.extraction.max_facts_per_person,
            max_facts_per_window=self.extraction.max_facts_per_window,
            max_message_chars=self.extraction.max_message_chars,
        )

    async def finish(
        self, episode: Episode, inp: PromptInput, answer: Extraction, refs: RefTable, tokens: tuple[int, int], started: float
    ) -> EpisodeStatus:
        """One window's answer resolved against its own refs and written as its episode (or failed)."""
        key = episode.key
        resolution = resolve(answer, refs, inp, episode_key=key, now=now_utc(), new_uuid=keyed_uuids(key))
        if resolution.unusable:
            return await self.fail(
                episode, "UnusableAnswer", "no fact of the answer resolved: " + "; ".join(resolution.dropped[:5]), tokens
            )
        people = {m.message.author_id for m in inp.window.messages} | optout_guard.mentioned(
            m.message for m in inp.window.messages
        )
        write = resolution.write.model_copy(
            update={"prompt_tokens": tokens[0], "completion_tokens": tokens[1], "people": tuple(sorted(people))}
        )
        write = await embed_facts(self.embed, write)
        outcome = await write_episode(self.store, write)
        emit(
            "ingest",
            "extraction_done",
            key=key,
            guild_id=episode.guild_id,
            messages=len(inp.window.messages),
            facts=outcome.facts,
            corroborations=outcome.corroborations,
            superseded=outcome.superseded,
            entities=outcome.entities,
            dropped=resolution.dropped[:20],
            latency_ms=round((time.perf_counter() - started) * 1000),
        )
        return EpisodeStatus.DONE

    async def fail(self, episode: Episode, error: str, why: str, tokens: tuple[int, int]) -> EpisodeStatus:
        """The window is failed with its reason, to be retried until `max_attempts`, then failed for good."""
        attempts = episode.attempts + 1
        reason = f"{error}: {why}"
        if attempts >= self.extraction.max_attempts:
            reason = f"failed for good after {attempts} attempts: {reason}"
        await mark_episode(self.store, episode.key, EpisodeStatus.FAILED, reason[:500], attempt=True, tokens=tokens)
        emit("ingest", "extraction_failed", key=episode.key, guild_id=episode.guild_id, error=error, reason=why[:300])
        return EpisodeStatus.FAILED


async def ask(llm: StructuredLLM, inp: PromptInput, key: str, guild_id: str) -> tuple[Extraction, RefTable, PromptInput]:
    """One extraction call; a prompt too long for the model's context is trimmed before it is sent
    (no earlier messages, known facts and entities halved, then long messages cut shorter), up to
    TRIMS times, and only then fails the window. Returns the answer, its refs and the input as sent."""
    for trim in range(TRIMS + 1):
        messages, refs = build_prompt(inp)
        try:
            answer = await llm.extract(messages, Extraction, purpose="extraction", tags={"window": key, "guild_id": guild_id})
            return answer, refs, inp
        except LLMError as exc:
            if exc.outcome != "too_long" or trim == TRIMS:
                raise
            emit("ingest", "prompt_trimmed", key=key, guild_id=guild_id, trim=trim + 1)
            inp = replace(
                inp,
                window=replace(inp.window, context=()),
                candidates=inp.candidates[: len(inp.candidates) // 2],
                known_entities=inp.known_entities[: len(inp.known_entities) // 2],
                max_message_chars=max(MIN_MESSAGE_CHARS, inp.max_message_chars // 2) if trim else inp.max_message_chars,
            )
    raise AssertionError("unreachable")


def tokens_of(llm: StructuredLLM | None, kind: str, key: str) -> tuple[int, int]:
    """The prompt and completion tokens of the last call tagged `kind` = `key` ("window", "batch")."""
    record = llm.meter.last_for(kind, key) if llm is not None else None
    return (record.prompt_tokens, record.completion_tokens) if record else (0, 0)


def retry_due(episode: Episode, now: datetime, backoff: bool, settings: ExtractionSettings) -> bool:
    """Whether a failed window is tried again now: never after `max_attempts`; with `backoff` (the bot's upkeep),
    2, 4, 8... times `retry_minutes` after its last attempt."""
    if episode.attempts >= settings.max_attempts:
        return False
    if not backoff or episode.updated_at is None or episode.attempts == 0:
        return True
    wait = timedelta(minutes=settings.retry_minutes * 2 ** (episode.attempts - 1))
    return now >= episode.updated_at + wait


def without_hidden(message: Message, hidden: Callable[[str], bool] | None) -> Message:
    """The message with a hidden member's mentions masked as @someone."""
    if hidden is None:
        return message
    content = MENTION.sub(lambda m: "@someone" if hidden(m.group(1)) else m.group(0), message.content)
    return message if content == message.content else message.model_copy(update={"content": content})


def _distinct(users: list[User]) -> list[User]:
    return list({u.id: u for u in users}.values())
