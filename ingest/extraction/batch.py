"""Several closed windows of a guild, one structured LLM call (`ingest.extraction.batch_prompt`): the answer split back per
window, and each window resolved against its own refs and written as its own episode, exactly as a window
extracted alone (`ingest.extraction.window`).

A batch the LLM fails is asked `batch_attempts` times; then every window of it is extracted on its own (the
single-window path, with its retries and backoff), so a window that keeps failing fails alone and never blocks
the others. A window the answer leaves out, or answers with nothing usable, is extracted on its own as well.
"""

from __future__ import annotations

import time

from common.events import emit
from graph.models import Episode, EpisodeStatus
from ingest.extraction.batch_prompt import BatchExtraction, build_batch_prompt, split
from ingest.extraction.on_error import NoAnswer, OnError, answer_of
from ingest.extraction.window import WindowSteps, tokens_of
from ingest.extraction.window_prompt import PromptInput
from llm.client import StructuredLLM


async def extract_together(
    steps: WindowSteps,
    llm: StructuredLLM,
    guild_id: str,
    parts: list[tuple[Episode, PromptInput]],
    out: dict[str, EpisodeStatus],
) -> list[str]:
    """Send the batch (asked again on failure), write what it answered into `out`; returns the keys to extract
    alone. The caller holds the guild's turn."""
    if len(parts) < 2:
        return [e.key for e, _ in parts]
    batch_id = f"batch:{parts[0][0].key}+{len(parts) - 1}"
    messages, tables = build_batch_prompt([inp for _, inp in parts])
    started = time.perf_counter()
    answer: BatchExtraction | None = None
    for attempt in range(1, steps.extraction.batch_attempts + 1):
        answered = await answer_of(
            llm.extract(messages, BatchExtraction, purpose="extraction", tags={"batch": batch_id, "guild_id": guild_id})
        )
        if not isinstance(answered, NoAnswer):
            answer = answered
            break
        if answered.then is OnError.PARK:
            emit("ingest", "batch_parked", batch=batch_id, guild_id=guild_id, reason=answered.reason[:300])
            steps.outage.extend(e.key for e, _ in parts)
            out.update({e.key: e.status for e, _ in parts})
            return []
        emit("ingest", "batch_failed", batch=batch_id, guild_id=guild_id, attempt=attempt, error=answered.name)
        if answered.error.outcome == "too_long":
            break  # too long for the model's context: asking again cannot help, each window goes alone
    if answer is None:
        emit("ingest", "batch_split", batch=batch_id, guild_id=guild_id, windows=len(parts))
        return [e.key for e, _ in parts]
    emit("ingest", "batch_extracted", batch=batch_id, guild_id=guild_id, windows=len(parts))
    alone: list[str] = []
    shares = _shares(tokens_of(llm, "batch", batch_id), [len(inp.window.messages) for _, inp in parts])
    for (episode, inp), extraction, refs, tokens in zip(parts, split(answer, len(parts)), tables, shares):
        if extraction is None:
            alone.append(episode.key)
            continue
        status = await steps.finish(episode, inp, extraction, refs, tokens, started)
        if status == EpisodeStatus.FAILED:
            alone.append(episode.key)  # nothing usable in its part of the answer: asked again on its own
        else:
            out[episode.key] = status
    return alone


def _shares(tokens: tuple[int, int], sizes: list[int]) -> list[tuple[int, int]]:
    """The batch call's tokens shared among its windows by their message counts."""
    prompt, completion = tokens
    total = sum(sizes) or 1
    return [(prompt * n // total, completion * n // total) for n in sizes]
