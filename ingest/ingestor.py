"""The ingestor: closed windows stored as pending episodes, extracted a guild's batch at a time, and the backlog of
the failed and pending ones.

The queue is the graph: a closed window is a pending episode, so a restart finds it where it was and forget-me
reaches its messages there (they are read back at extraction time, never kept in memory). `ingest.extraction.batch_rule`
says which windows go together and when; `ingest.extraction.batch` sends a batch as one call, and
`ingest.extraction.window` extracts a window alone (a batch of one, a window split out of its batch, a failed
window retried). Windows of one guild are extracted one at a time, different guilds concurrently up to
`guild_concurrency` (`ingest.guild_turns`).
"""

from __future__ import annotations

import asyncio
import random
import uuid
from collections import defaultdict
from collections.abc import Callable, Collection, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from common.clock import now_utc
from common.events import emit
from common.settings import ExtractionSettings, WindowSettings
from graph.models import Episode, EpisodeClose, EpisodeStatus
from graph.reads.backlog import episode_by_key, episode_messages, episodes_by_status, episodes_holding
from graph.store import GraphStore
from graph.unreachable import unreachable
from graph.writes.episodes import close_episode
from ingest.extraction.batch import extract_together
from ingest.extraction.batch_rule import Queued, age_limit, batches, queued
from ingest.extraction.reextraction import reextract_edited
from ingest.extraction.window import WindowSteps, retry_due, tokens_of
from ingest.extraction.window_prompt import PromptInput
from ingest.guild_turns import GuildTurns
from ingest.windows import ClosedWindow
from llm.client import StructuredLLM


@dataclass
class BacklogResult:
    done: int = 0
    failed: int = 0
    skipped: int = 0
    pending: int = 0
    parked: int = 0  # left as they were: the LLM's circuit breaker was open
    reextracted: int = 0  # episodes whose edited messages were extracted again (ingest/extraction/reextraction.py)


class Ingestor:
    """Closed windows wait in the queue and are extracted in batches (EXTRACTION_BATCH_MESSAGES=1: each window on
    its own, at once). Without an LLM they stay pending."""

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
        clock: Callable[[], datetime] = now_utc,
        lock_dir: Path | None = None,
    ) -> None:
        self.store = store
        self.llm = llm
        self.extraction = extraction
        self.windows = windows
        self.clock = clock
        self.steps = WindowSteps(store, extraction, windows, rng=rng, hidden=hidden, embed=embed)
        self.turns = GuildTurns(extraction.guild_concurrency, lock_dir)  # lock_dir: the data directory's, shared
        self.holds: Callable[[str], bool] = lambda _guild_id: True  # whose backlog this process extracts (a shard's)
        self._sizes: dict[str, Queued] = {}  # key -> its size, read once per queued window
        # guild id -> its latest queued windows, episode uuid -> (first message, last message, messages): its pace
        self._recent: dict[str, dict[str, tuple[datetime, datetime, int]]] = {}

    def paused(self) -> AbstractAsyncContextManager[None]:
        """No extraction runs inside: the ones in flight finish (and write) first, new ones wait. Forget-me
        deletes inside, so nothing extracted from a forgotten member's messages can land after it."""
        return self.turns.paused()

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

    async def submit(self, window: ClosedWindow) -> EpisodeStatus:
        """Store the closed window as a pending episode; extract the guild's batches that are due now."""
        held = await self.close(window)
        if held is not None:
            return held
        await self.extract_due(window.guild_id)
        episode = await episode_by_key(self.store, window.key)
        return episode.status if episode else EpisodeStatus.DONE

    async def tick(self) -> None:
        """Extract every guild's batches that are due by age (the live timer calls this)."""
        await self.extract_due(None)

    async def extract_due(
        self, guild_id: str | None, *, everything: bool = False, progress: Callable[[int], None] | None = None
    ) -> dict[str, EpisodeStatus]:
        """The batches due now (all queued windows with `everything`), oldest first, per guild; `progress` hears
        how many windows each batch settled."""
        if self.llm is None:
            return {}
        self.steps.outage.clear()  # a new pass: the endpoint is tried again
        queued = await episodes_by_status(self.store, [EpisodeStatus.PENDING], guild_id=guild_id, limit=10_000)
        by_guild: dict[str, list[Episode]] = {}
        for episode in queued:
            if self.holds(episode.guild_id):
                by_guild.setdefault(episode.guild_id, []).append(episode)
        out: dict[str, EpisodeStatus] = {}
        for episodes in by_guild.values():
            queue = [await self._queued(e) for e in episodes]
            now = self.clock()
            due = batches(queue, self.extraction, now, self.age_limit(episodes[0].guild_id, episodes))
            if everything:
                taken = {q.key for batch in due for q in batch}
                rest = [q for q in queue if q.key not in taken]
                due += batches(rest, self.extraction, now, timedelta(0)) if rest else []
            for batch in due:
                if self.parked:
                    return out
                settled = await self.extract_batch([q.key for q in batch])
                out.update(settled)
                if progress is not None:
                    progress(len(settled))
        return out

    @property
    def parked(self) -> bool:
        """Whether this pass calls the LLM no more: its circuit breaker is open, or a call found it unreachable."""
        return self.llm is not None and (self.llm.parked or bool(self.steps.outage))

    async def extract_batch(self, keys: list[str]) -> dict[str, EpisodeStatus]:
        """One call for these windows of one guild (a single window goes the single-window way)."""
        if len(keys) == 1:
            return {keys[0]: await self.extract(keys[0])}
        first = await episode_by_key(self.store, keys[0])
        if first is None or self.llm is None:
            return {}
        out: dict[str, EpisodeStatus] = {}
        async with self.turns.turn(first.guild_id):
            parts: list[tuple[Episode, PromptInput]] = []
            for key in keys:
                prepared = await self.steps.prepare(key)
                if isinstance(prepared, EpisodeStatus):
                    out[key] = prepared
                    continue
                episode, window = prepared
                parts.append((episode, await self.steps.prompt_input(window)))
            alone = await extract_together(self.steps, self.llm, first.guild_id, parts, out)
        for key in alone:  # split out: each on its own, with its own retries
            out[key] = await self.extract(key)
        for key in out:
            self._sizes.pop(key, None)
        return out

    async def extract(self, key: str) -> EpisodeStatus:
        """One stored window alone, in its guild's turn; a fault of the graph that is not an outage fails it."""
        episode = await episode_by_key(self.store, key)
        if episode is None:
            raise LookupError(f"no episode {key}")
        if episode.status == EpisodeStatus.DONE:
            return EpisodeStatus.DONE
        if self.llm is None:
            return episode.status
        async with self.turns.turn(episode.guild_id):
            try:
                return await self.steps.extract(self.llm, key)
            except Exception as exc:
                if unreachable(exc) or (failed := await episode_by_key(self.store, key)) is None:
                    raise
                return await self.steps.fail(failed, type(exc).__name__, str(exc), tokens_of(self.llm, "window", key))

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
        """Extract windows left pending (no LLM then) or parked as failed; each exactly once. Pending windows go in
        batches: all of them at once (`grapevine ingest --pending`), or only the batches due (the bot's upkeep,
        `backoff=True`); the windows still pending after it are counted as such, or as parked when the LLM's
        circuit breaker is open. Failed windows go alone (`retry_due` says which)."""
        self.steps.outage.clear()
        batched = await self.extract_due(guild_id, everything=not backoff) if EpisodeStatus.PENDING in statuses else {}
        rest = tuple(s for s in statuses if s != EpisodeStatus.PENDING)
        result = BacklogResult()
        if rest:  # less what the batches settled: each window counted once
            result = await self._one_by_one(
                rest, guild_id, limit, progress, backoff=backoff, retry_failed=retry_failed, settled=set(batched)
            )
        else:
            result.reextracted = await self.reextract_edited(guild_id)
        for status in batched.values():
            if status != EpisodeStatus.PENDING:
                setattr(result, status.value, getattr(result, status.value) + 1)
                if progress:
                    progress(status)
        if EpisodeStatus.PENDING in statuses:
            waiting = [
                e
                for e in await episodes_by_status(self.store, [EpisodeStatus.PENDING], guild_id, limit)
                if self.holds(e.guild_id)
            ]
            if self.parked:
                result.parked += len(waiting)
            else:
                result.pending += len(waiting)
                if progress:
                    for _ in waiting:
                        progress(EpisodeStatus.PENDING)
        return result

    async def _one_by_one(
        self,
        statuses: tuple[EpisodeStatus, ...],
        guild_id: str | None,
        limit: int,
        progress: Callable[[EpisodeStatus], None] | None,
        *,
        backoff: bool,
        retry_failed: bool,
        settled: Collection[str] = (),
    ) -> BacklogResult:
        """The backlog's windows of these statuses, each alone. A window failed `max_attempts` times is failed for
        good (unless `retry_failed`). Once the LLM's circuit breaker opens, the rest is left as it is (parked)
        and counted as such."""
        result = BacklogResult()
        now = now_utc()
        episodes = [
            e
            for e in await episodes_by_status(self.store, list(statuses), guild_id=guild_id, limit=limit)
            if self.holds(e.guild_id)
            and e.key not in settled
            and (e.status != EpisodeStatus.FAILED or retry_failed or retry_due(e, now, backoff, self.extraction))
        ]
        by_guild: defaultdict[str, list[str]] = defaultdict(list)
        for episode in episodes:  # oldest first: a later window may supersede what an earlier one said
            by_guild[episode.guild_id].append(episode.key)

        async def guild(keys: list[str]) -> None:
            for key in keys:  # in order within a guild; guilds run concurrently
                if self.parked:
                    result.parked += 1
                    continue
                status = await self.extract(key)
                if key in self.steps.outage:  # the LLM was unreachable for it: parked as it was
                    result.parked += 1
                    continue
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
        """Edited messages of extracted episodes, extracted again from their new text (ingest/extraction/reextraction.py)."""
        if self.llm is None:
            return 0
        return await reextract_edited(self.steps, self.llm, self.turns, self.holds, guild_id)

    def age_limit(self, guild_id: str, pending: Sequence[Episode] = ()) -> timedelta:
        """How long the guild's unfilled batch waits now, from the pace of its windows queued since the
        process started and of its `pending` ones (a restart finds the queue there)."""
        recent = dict(self._recent.get(guild_id, {}))
        recent.update({e.uuid: (e.started_at, e.ended_at, e.message_count) for e in pending if e.uuid not in recent})
        return age_limit(recent.values(), self.extraction)

    async def _queued(self, episode: Episode) -> Queued:
        if episode.key not in self._sizes:
            texts = [m.content for m, _ in await episode_messages(self.store, episode.key)]
            self._sizes[episode.key] = queued(
                episode.key, episode.channel_id, episode.started_at, texts, self.windows.context_messages
            )
            self._remember(episode, len(texts))
        return self._sizes[episode.key]

    def _remember(self, episode: Episode, messages: int) -> None:
        """The window in its guild's pace; the newest `batch_messages` windows hold at least that many messages."""
        recent = self._recent.setdefault(episode.guild_id, {})
        recent[episode.uuid] = (episode.started_at, episode.ended_at, messages)
        if len(recent) > self.extraction.batch_messages:
            del recent[min(recent, key=lambda uuid: recent[uuid][1])]


def _progress(status: EpisodeStatus) -> int:
    """Least done first: the status a window held by several episodes reports."""
    order = (EpisodeStatus.FAILED, EpisodeStatus.PENDING, EpisodeStatus.SKIPPED, EpisodeStatus.DONE)
    return order.index(status) if status in order else 0
