"""The whole ingest path on replayed chat: messages through the live window policy (simulated time) and
the ingestor (`Ingestor`), against a scripted server that answers every window with a minimal valid extraction.
Used by `bench.irc_replay` and by the tests that replay real IRC."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from common.settings import ExtractionSettings, LLMSettings, WindowSettings
from common.tokens import estimate_tokens
from graph.models import Channel, Guild
from graph.reads.stats import graph_stats
from graph.store import GraphStore
from graph.writes.discord_records import upsert_channel, upsert_guild, upsert_users
from graph.writes.messages import record_messages
from ingest.ingestor import Ingestor
from ingest.replay import replay
from ingest.windows import WindowMessage
from llm.client import OpenAILLM
from llm.meter import UsageMeter
from tests.support.prompt_reader import Prompt
from tests.support.scripted_llm import ScriptedLLMServer


@dataclass(frozen=True)
class ReplayFigures:
    messages: int
    windows: int
    calls: int  # extraction calls (logical: a retry or re-ask is not a second call)
    requests: int  # HTTP requests the server received
    prompt_tokens: int  # as sent in the chat messages
    schema_tokens: int  # the response schema sent with every request
    completion_tokens: int
    facts: int
    statuses: dict[str, int]
    seconds: float

    @property
    def calls_per_100(self) -> float:
        return 100 * self.calls / self.messages if self.messages else 0.0

    @property
    def prompt_tokens_per_message(self) -> float:
        return self.prompt_tokens / self.messages if self.messages else 0.0

    @property
    def schema_tokens_per_message(self) -> float:
        return self.schema_tokens / self.messages if self.messages else 0.0

    @property
    def completion_tokens_per_message(self) -> float:
        return self.completion_tokens / self.messages if self.messages else 0.0


def minimal_answer(request: dict[str, Any]) -> dict[str, Any]:
    """A valid extraction for any prompt: one fact about the author of m1, reported by them, citing m1."""
    first = Prompt(request).messages.get("m1")
    stamp, author, name = (
        (first.at.strftime("%Y-%m-%d %H:%M UTC"), first.author_ref, first.author.split(" ", 1)[-1]) if first else ("", "U1", "U1")
    )
    return {
        "summary": f"{name} and others talked in the channel.",
        "entities": [],
        "facts": [{"text": f"{name} spoke in the channel at {stamp}", "about": [author], "mentions": [],
                   "reported_by": [author], "source_messages": ["m1"], "category": "other", "importance": 1,
                   "confidence": 0.5, "valid_at": "", "expiry": "permanent", "supersedes": [],
                   "corroborates": None}],
    }  # fmt: skip


async def replay_ingest(
    messages: Sequence[WindowMessage],
    store: GraphStore,
    srv: ScriptedLLMServer,
    *,
    windows: WindowSettings | None = None,
    extraction: ExtractionSettings | None = None,
) -> ReplayFigures:
    """Replay `messages` (one guild) through the window policy and the ingestor on `store`, against `srv`.

    Each closed window's users and messages are recorded, then submitted, one after another, as the
    live bot does when it keeps up. `srv` answers with `minimal_answer` unless it has a responder.
    """
    windows = windows or WindowSettings()
    extraction = extraction or ExtractionSettings(batch_messages=1)  # each window extracted as it closes
    if srv.responder is None:
        srv.responder = minimal_answer
    guild_ids = {wm.message.guild_id for wm in messages}
    for guild_id in sorted(guild_ids):
        await upsert_guild(store, Guild(id=guild_id, name=guild_id))
    for channel_id, guild_id in sorted({(wm.message.channel_id, wm.message.guild_id) for wm in messages}):
        await upsert_channel(store, Channel(id=channel_id, guild_id=guild_id, name=channel_id))
    calls_before, requests_before = srv.calls, len(srv.requests)
    prompt_before, completion_before = srv.prompt_tokens, srv.completion_tokens
    llm = OpenAILLM(LLMSettings(base_url=srv.base_url, model=srv.model, timeout=30.0, max_attempts=2),
                    UsageMeter(), min_wait=0.01, max_wait=0.1)  # fmt: skip
    ingestor = Ingestor(store, llm, extraction, windows)
    statuses: dict[str, int] = {}
    closed = 0
    started = time.perf_counter()
    try:
        for window in replay(messages, windows):
            await upsert_users(store, list({wm.author.id: wm.author for wm in window.messages}.values()))
            await record_messages(store, [wm.message for wm in window.messages])
            status = await ingestor.submit(window)
            statuses[status.value] = statuses.get(status.value, 0) + 1
            closed += 1
    finally:
        await llm.aclose()
    seconds = time.perf_counter() - started
    sent = srv.requests[requests_before:]
    schema = sum(estimate_tokens(json.dumps(r.get("response_format") or {})) for r in sent)
    nodes = (await graph_stats(store))["nodes"]
    facts = sum(r["count"] for r in nodes if r["label"] == "Fact" and r["guild_id"] in guild_ids)
    return ReplayFigures(
        messages=len(messages), windows=closed, calls=llm.meter.calls, requests=srv.calls - calls_before,
        prompt_tokens=srv.prompt_tokens - prompt_before, schema_tokens=schema,
        completion_tokens=srv.completion_tokens - completion_before, facts=facts, statuses=statuses, seconds=seconds,
    )  # fmt: skip
