"""Closed windows of a guild extracted together: one LLM call for several episodes.

The queue is the graph: a closed window is a pending episode, so a restart finds it where it was and
forget-me reaches its messages there (they are read back at extraction time, never kept in memory).
`ingest.batching` says which windows go together and when; here a batch is sent as one call
(`ingest.batch_prompt`), its answer split back per window, and each window resolved against its own
refs and written as its own episode, exactly as a window extracted alone.

A batch the LLM fails is tried `batch_attempts` times; then every window of it is extracted on its
own (the single-window path, with its retries and backoff), so a window that keeps failing fails
alone and never blocks the others. A window the answer leaves out, or answers with nothing usable,
is extracted on its own as well.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

from common.clock import now_utc
from common.events import emit
from graph.models import Episode, EpisodeStatus
from graph.reads.backlog import episode_by_key, episode_messages, episodes_by_status
from ingest.batch_prompt import BatchExtraction, build_batch_prompt, split
from ingest.batching import Queued, age_limit, batches, queued
from ingest.extraction import PromptInput
from ingest.pipeline import BacklogResult, WindowExtractor
from ingest.windows import ClosedWindow
from llm.errors import LLMError, LLMUnavailable


class BatchingIngestor(WindowExtractor):
    """The ingestor: closed windows wait in the queue and are extracted in batches (EXTRACTION_BATCH_MESSAGES=1:
    each window on its own, at once)."""

    def __init__(self, *args: object, clock: Callable[[], datetime] = now_utc, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]  # the WindowExtractor's own signature
        self.clock = clock
        self._sizes: dict[str, Queued] = {}  # key -> its size, read once per queued window
        # guild id -> its latest queued windows, episode uuid -> (first message, last message, messages): its pace
        self._recent: dict[str, dict[str, tuple[datetime, datetime, int]]] = {}

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
                if self.llm.parked:
                    return out
                settled = await self.extract_batch([q.key for q in batch])
                out.update(settled)
                if progress is not None:
                    progress(len(settled))
        return out

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
        """As `WindowExtractor.process_backlog`, with pending windows extracted in batches: all of them at once
        (`grapevine ingest --pending`), or only the batches due (the bot's upkeep, `backoff=True`). The windows
        still pending after it are counted as such, or as parked when the LLM's circuit breaker is open."""
        batched = await self.extract_due(guild_id, everything=not backoff) if EpisodeStatus.PENDING in statuses else {}
        rest = tuple(s for s in statuses if s != EpisodeStatus.PENDING)
        result = BacklogResult()
        if rest:
            result = await super().process_backlog(rest, guild_id, limit, progress, backoff=backoff, retry_failed=retry_failed)
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
            if self.llm is not None and self.llm.parked:
                result.parked += len(waiting)
            else:
                result.pending += len(waiting)
                if progress:
                    for _ in waiting:
                        progress(EpisodeStatus.PENDING)
        return result

    async def extract_batch(self, keys: list[str]) -> dict[str, EpisodeStatus]:
        """One call for these windows of one guild (a single window goes the single-window way)."""
        if len(keys) == 1:
            return {keys[0]: await self.extract(keys[0])}
        first = await episode_by_key(self.store, keys[0])
        if first is None:
            return {}
        out: dict[str, EpisodeStatus] = {}
        async with self.turn(first.guild_id):
            parts: list[tuple[Episode, PromptInput]] = []
            for key in keys:
                prepared = await self.prepare(key)
                if isinstance(prepared, EpisodeStatus):
                    out[key] = prepared
                    continue
                episode, window = prepared
                parts.append((episode, await self.prompt_input(window)))
            alone = await self._batch_locked(first.guild_id, parts, out)
        for key in alone:  # split out: each on its own, with its own retries
            out[key] = await self.extract(key)
        for key in out:
            self._sizes.pop(key, None)
        return out

    async def _batch_locked(
        self, guild_id: str, parts: list[tuple[Episode, PromptInput]], out: dict[str, EpisodeStatus]
    ) -> list[str]:
        """Send the batch (retried), write what it answered; returns the keys to extract alone."""
        if len(parts) < 2:
            return [e.key for e, _ in parts]
        batch_id = f"batch:{parts[0][0].key}+{len(parts) - 1}"
        messages, tables = build_batch_prompt([inp for _, inp in parts])
        started = time.perf_counter()
        answer: BatchExtraction | None = None
        for attempt in range(1, self.extraction.batch_attempts + 1):
            try:
                answer = await self.llm.extract(  # type: ignore[union-attr]  # only called with an LLM
                    messages, BatchExtraction, purpose="extraction", tags={"batch": batch_id, "guild_id": guild_id}
                )
                break
            except LLMUnavailable as exc:
                emit("ingest", "batch_parked", batch=batch_id, guild_id=guild_id, reason=str(exc)[:300])
                out.update({e.key: e.status for e, _ in parts})
                return []
            except LLMError as exc:
                emit("ingest", "batch_failed", batch=batch_id, guild_id=guild_id, attempt=attempt, error=type(exc).__name__)
                if exc.outcome == "too_long":
                    break  # too long for the model's context: asking again cannot help, each window goes alone
        if answer is None:
            emit("ingest", "batch_split", batch=batch_id, guild_id=guild_id, windows=len(parts))
            return [e.key for e, _ in parts]
        emit("ingest", "batch_extracted", batch=batch_id, guild_id=guild_id, windows=len(parts))
        alone: list[str] = []
        shares = self._shares(batch_id, [len(inp.window.messages) for _, inp in parts])
        for (episode, inp), extraction, refs, tokens in zip(parts, split(answer, len(parts)), tables, shares):
            if extraction is None:
                alone.append(episode.key)
                continue
            status = await self.finish(episode, inp, extraction, refs, tokens, started)
            if status == EpisodeStatus.FAILED:
                alone.append(episode.key)  # nothing usable in its part of the answer: asked again on its own
            else:
                out[episode.key] = status
        return alone

    def _shares(self, batch_id: str, sizes: list[int]) -> list[tuple[int, int]]:
        """The batch call's tokens shared among its windows by their message counts."""
        record = self.llm.meter.last_for("batch", batch_id) if self.llm is not None else None
        prompt, completion = (record.prompt_tokens, record.completion_tokens) if record else (0, 0)
        total = sum(sizes) or 1
        return [(prompt * n // total, completion * n // total) for n in sizes]

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
