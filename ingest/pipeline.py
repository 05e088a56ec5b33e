"""From a closed window to an episode in the graph: one structured LLM call, resolved, written once.

Windows of one guild are extracted one at a time (two windows never supersede the same fact at
once); different guilds run concurrently up to `guild_concurrency`.
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from collections import defaultdict
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from common.clock import now_utc
from common.events import emit
from common.settings import ExtractionSettings, WindowSettings
from common.text import MENTION, keywords
from graph.models import Episode, EpisodeClose, EpisodeStatus, EpisodeWrite, Message, User
from graph.privacy import optout_guard
from graph.reads.backlog import episode_by_key, episode_messages, episodes_by_status, episodes_holding, messages_before
from graph.reads.facts import entities_by_names, facts_about, members_by_name, search_entities, users_by_id
from graph.store import GraphStore
from graph.unreachable import unreachable
from graph.writes.episodes import close_episode, mark_episode, write_episode
from ingest.embeddings import embed_facts
from ingest.extraction import Extraction, PromptInput, RefTable, build_prompt
from ingest.reextraction import reextract_edited
from ingest.resolution import keyed_uuids, resolve
from ingest.windows import ClosedWindow, WindowMessage
from llm.client import StructuredLLM
from llm.errors import LLMError, LLMUnavailable

TRIMS = 3  # times a prompt too long for the model's context is trimmed before its window fails
MIN_MESSAGE_CHARS = 200


@dataclass
class BacklogResult:
    done: int = 0
    failed: int = 0
    skipped: int = 0
    pending: int = 0
    parked: int = 0  # left as they were: the LLM's circuit breaker was open
    reextracted: int = 0  # episodes whose edited messages were extracted again (ingest/reextraction.py)


class WindowExtractor:
    """Stored windows extracted one at a time: a closed window stored as its pending episode, prepared, sent in one
    call, resolved and written, or failed with its reason and retried; the backlog of failed and pending ones.
    `ingest.batched.BatchingIngestor` is the ingestor built on it (it sends a guild's closed windows together, and a
    window alone through this path)."""

    def __init__(
        self,
        store: GraphStore,
        llm: StructuredLLM | None,
        extraction: ExtractionSettings,
        windows: WindowSettings,
        *,
        rng: Callable[[], float] = random.random,
        hidden: Callable[[str], bool] | None = None,
        embed: Callable[[str], list[float]] | None = None,
    ) -> None:
        self.store = store
        self.llm = llm
        self.extraction = extraction
        self.windows = windows
        self.rng = rng
        self.embed = embed  # facts get an embedding for the vector index when embeddings are on
        self.hidden = hidden  # opted-out ids: their mentions in others' messages never reach the LLM
        self.holds: Callable[[str], bool] = lambda _guild_id: True  # whose backlog this process extracts (a shard's)
        self._guild_locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._slots = asyncio.Semaphore(extraction.guild_concurrency)
        self._running = asyncio.Event()  # cleared while paused: no extraction starts
        self._running.set()
        self._pausing = asyncio.Lock()

    @asynccontextmanager
    async def paused(self) -> AsyncIterator[None]:
        """No extraction runs inside: the ones in flight finish (and write) first, new ones wait. Forget-me
        deletes inside, so nothing extracted from a forgotten member's messages can land after it."""
        async with self._pausing, AsyncExitStack() as held:
            self._running.clear()
            try:
                for guild in sorted(self._guild_locks):
                    await held.enter_async_context(self._guild_locks[guild])
                yield
            finally:
                self._running.set()

    async def close(self, window: ClosedWindow) -> EpisodeStatus | None:
        """Store the closed window as a pending episode (idempotent on its key); its messages leave the buffer.
        A window whose every message is already in an episode (the same history imported again, with a
        forgotten member's messages now left out) is that episode: nothing new is stored, and its
        status comes back."""
        holding = await episodes_holding(self.store, list(window.message_ids))
        if holding and sum(held for _, _, held in holding) >= len(window.message_ids):
            return min((status for _, status, _ in holding), key=_progress)
        await close_episode(
            self.store,
            EpisodeClose(
                key=window.key,
                uuid=uuid.uuid5(uuid.NAMESPACE_URL, f"episode:{window.key}").hex,
                guild_id=window.guild_id,
                channel_id=window.channel_id,
                started_at=window.started_at,
                ended_at=window.ended_at,
                message_ids=window.message_ids,
                participant_ids=window.participant_ids,
            ),
        )
        emit(
            "ingest",
            "window_closed",
            key=window.key,
            guild_id=window.guild_id,
            messages=len(window.messages),
            reason=window.reason,
        )
        return None

    async def extract(self, key: str) -> EpisodeStatus:
        episode = await episode_by_key(self.store, key)
        if episode is None:
            raise LookupError(f"no episode {key}")
        if episode.status == EpisodeStatus.DONE:
            return EpisodeStatus.DONE
        if self.llm is None:
            return episode.status
        async with self.turn(episode.guild_id):
            try:
                return await self._extract_locked(key)
            except Exception as exc:
                if unreachable(exc) or (failed := await episode_by_key(self.store, key)) is None:
                    raise
                return await self.fail(failed, type(exc).__name__, str(exc))

    @asynccontextmanager
    async def turn(self, guild_id: str) -> AsyncIterator[None]:
        """Held while a guild's extraction runs: one at a time per guild, `guild_concurrency` guilds, and
        none while `paused` (the lock is taken only once not paused, re-checked after waiting for it)."""
        while True:
            await self._running.wait()
            async with self._guild_locks[guild_id]:
                if not self._running.is_set():
                    continue  # paused while waiting for the lock, and this guild's lock was not held
                async with self._slots:
                    yield
                    return

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
        stored = [(self._without_hidden(m), u) for m, u in await episode_messages(self.store, key)]
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

    async def _extract_locked(self, key: str) -> EpisodeStatus:
        prepared = await self.prepare(key)
        if isinstance(prepared, EpisodeStatus):
            return prepared
        episode, window = prepared
        inp = await self.prompt_input(window)
        started = time.perf_counter()
        try:
            answer, refs, inp = await self._extract_fitting(inp, key, episode.guild_id)
        except LLMUnavailable as exc:
            emit("ingest", "extraction_parked", key=key, guild_id=episode.guild_id, reason=str(exc)[:300])
            return episode.status  # not an attempt: the breaker parks the window as it was
        except LLMError as exc:
            return await self.fail(episode, type(exc).__name__, str(exc))
        return await self.finish(episode, inp, answer, refs, self._tokens_of(key), started)

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

    async def fail(self, episode: Episode, error: str, why: str, tokens: tuple[int, int] | None = None) -> EpisodeStatus:
        """The window is failed with its reason, to be retried until `max_attempts`, then failed for good."""
        attempts = episode.attempts + 1
        reason = f"{error}: {why}"
        if attempts >= self.extraction.max_attempts:
            reason = f"failed for good after {attempts} attempts: {reason}"
        await mark_episode(
            self.store,
            episode.key,
            EpisodeStatus.FAILED,
            reason[:500],
            attempt=True,
            tokens=tokens or self._tokens_of(episode.key),
        )
        emit("ingest", "extraction_failed", key=episode.key, guild_id=episode.guild_id, error=error, reason=why[:300])
        return EpisodeStatus.FAILED

    async def _extract_fitting(self, inp: PromptInput, key: str, guild_id: str) -> tuple[Extraction, RefTable, PromptInput]:
        """One extraction call; a prompt too long for the model's context is trimmed before it is sent
        (no earlier messages, known facts and entities halved, then long messages cut shorter), up to
        TRIMS times, and only then fails the window."""
        for trim in range(TRIMS + 1):
            messages, refs = build_prompt(inp)
            try:
                answer = await self.llm.extract(  # type: ignore[union-attr]  # only called when an LLM is set
                    messages, Extraction, purpose="extraction", tags={"window": key, "guild_id": guild_id}
                )
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

    async def prompt_input(self, window: ClosedWindow) -> PromptInput:
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

    async def process_backlog(
        self,
        statuses: tuple[EpisodeStatus, ...] = (EpisodeStatus.PENDING, EpisodeStatus.FAILED),
        guild_id: str | None = None,
        limit: int = 10_000,
        progress: Callable[[EpisodeStatus], None] | None = None,
        *,
        backoff: bool = False,
        retry_failed: bool = False,
    ) -> BacklogResult:
        """Extract windows left pending (no LLM then) or parked as failed; each exactly once. A window failed
        `max_attempts` times is failed for good (unless `retry_failed`); with `backoff` (the bot's upkeep) a
        failed window waits 2, 4, 8... times `retry_minutes` after its last attempt. Once the LLM's circuit
        breaker opens, the rest of the backlog is left as it is (parked) and counted as such."""
        result = BacklogResult()
        now = now_utc()
        episodes = [
            e
            for e in await episodes_by_status(self.store, list(statuses), guild_id=guild_id, limit=limit)
            if self.holds(e.guild_id) and (e.status != EpisodeStatus.FAILED or retry_failed or self._due(e, now, backoff))
        ]
        by_guild: defaultdict[str, list[str]] = defaultdict(list)
        for episode in episodes:  # oldest first: a later window may supersede what an earlier one said
            by_guild[episode.guild_id].append(episode.key)

        async def guild(keys: list[str]) -> None:
            for key in keys:  # in order within a guild; guilds run concurrently
                if self.llm is not None and self.llm.parked:
                    result.parked += 1
                    continue
                status = await self.extract(key)
                setattr(result, status.value, getattr(result, status.value) + 1)
                if progress:
                    progress(status)

        await asyncio.gather(*(guild(keys) for keys in by_guild.values()))
        result.reextracted = await self.reextract_edited(guild_id)
        emit(
            "ingest",
            "backlog_processed",
            done=result.done,
            failed=result.failed,
            skipped=result.skipped,
            pending=result.pending,
            parked=result.parked,
        )
        return result

    async def reextract_edited(self, guild_id: str | None = None) -> int:
        """Edited messages of extracted episodes, extracted again from their new text (ingest/reextraction.py)."""
        return await reextract_edited(self, guild_id)

    def _tokens_of(self, key: str) -> tuple[int, int]:
        record = self.llm.meter.last_for("window", key) if self.llm is not None else None
        return (record.prompt_tokens, record.completion_tokens) if record else (0, 0)

    def _due(self, episode: Episode, now: datetime, backoff: bool) -> bool:
        if episode.attempts >= self.extraction.max_attempts:
            return False
        if not backoff or episode.updated_at is None or episode.attempts == 0:
            return True
        wait = timedelta(minutes=self.extraction.retry_minutes * 2 ** (episode.attempts - 1))
        return now >= episode.updated_at + wait

    def _without_hidden(self, message: Message) -> Message:
        if self.hidden is None:
            return message
        content = MENTION.sub(lambda m: "@someone" if self.hidden(m.group(1)) else m.group(0), message.content)  # type: ignore[misc]  # hidden is a plain predicate
        return message if content == message.content else message.model_copy(update={"content": content})


def _progress(status: EpisodeStatus) -> int:
    """Least done first: the status a window held by several episodes reports."""
    order = (EpisodeStatus.FAILED, EpisodeStatus.PENDING, EpisodeStatus.SKIPPED, EpisodeStatus.DONE)
    return order.index(status) if status in order else 0


def _distinct(users: list[User]) -> list[User]:
    return list({u.id: u for u in users}.values())
