"""What ingesting real chat costs in LLM calls and tokens: one shared IRC dev sample replayed through the
live window policy (simulated time) and the full Ingestor.

    python -m bench.irc_replay [--sample PATH] [--quick]

The Ingestor talks to a scripted OpenAI-compatible server on loopback with the real openai client, and
writes to a temporary ArcadeDB started for the run. The server answers every request with a minimal
valid extraction (a summary and one fact about the window's first author, reported by them, citing
m1), so the figures measure the pipeline, not a model: messages, windows closed, calls, calls per 100
messages, prompt and completion tokens per message (estimated with `grapevine.tokens`, the prompt as
sent in the chat messages; the response schema, which a hosted API also bills, is shown apart).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.common import TempArcadeDB
from bench.datasets import DATA_DIR, IRC_GUILD, dev_samples, load_irc
from grapevine.scripted_llm import ScriptedLLMServer
from grapevine.settings import ExtractionSettings, LLMSettings, WindowSettings
from grapevine.tokens import estimate_tokens
from graph.models import Channel, Guild
from graph.store import GraphStore
from ingest.llm import OpenAILLM, UsageMeter
from ingest.pipeline import Ingestor
from ingest.replay import replay
from ingest.windows import WindowMessage

QUICK_MESSAGES = 300


def builtin(cls: type[Any], **overrides: Any) -> Any:
    """A settings section with its built-in defaults, whatever the environment or `.env` say."""
    values = {name: f.get_default(call_default_factory=True) for name, f in cls.model_fields.items()}
    return cls(**(values | overrides))


_FIRST_LINE = re.compile(r"^m1 \[([^\]]+)\] (U\d+) ([^:]*?)(?: \(reply to [^)]*\))?(?: \(edited\))?: ")


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


def window_settings(**overrides: Any) -> WindowSettings:
    return builtin(WindowSettings, **overrides)  # type: ignore[no-any-return]


def extraction_settings(**overrides: Any) -> ExtractionSettings:
    return builtin(ExtractionSettings, **overrides)  # type: ignore[no-any-return]


def minimal_answer(request: dict[str, Any]) -> dict[str, Any]:
    """A valid extraction for any prompt: one fact about the author of m1, reported by them, citing m1."""
    prompt = next(m["content"] for m in request["messages"] if m.get("role") == "user")
    window = prompt.split("\nWINDOW\n", 1)[1] if "\nWINDOW\n" in prompt else ""
    found = _FIRST_LINE.match(window)
    stamp, author, name = (found[1], found[2], found[3]) if found else ("", "U1", "U1")
    return {
        "summary": f"{name} and others talked in the channel.",
        "entities": [],
        "facts": [{"text": f"{name} spoke in the channel at {stamp}", "about": [author], "mentions": [],
                   "reported_by": [author], "source_messages": ["m1"], "category": "other", "importance": 1,
                   "confidence": 0.5, "valid_at": "", "expiry": "permanent", "supersedes": [],
                   "corroborates": None}],
    }  # fmt: skip


async def replay_ingest(messages: Sequence[WindowMessage], store: GraphStore, srv: ScriptedLLMServer, *,
                        windows: WindowSettings | None = None, extraction: ExtractionSettings | None = None) -> ReplayFigures:
    """Replay `messages` (one guild) through the window policy and the Ingestor on `store`, against `srv`.

    Each closed window's users and messages are recorded, then submitted, one after another, as the
    live bot does when it keeps up. `srv` answers with `minimal_answer` unless it has a responder.
    """
    windows = windows or window_settings()
    extraction = extraction or extraction_settings()
    if srv.responder is None:
        srv.responder = minimal_answer
    guild_ids = {wm.message.guild_id for wm in messages}
    for guild_id in sorted(guild_ids):
        await store.upsert_guild(Guild(id=guild_id, name=guild_id))
    for channel_id, guild_id in sorted({(wm.message.channel_id, wm.message.guild_id) for wm in messages}):
        await store.upsert_channel(Channel(id=channel_id, guild_id=guild_id, name=channel_id))
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
            await store.upsert_users(list({wm.author.id: wm.author for wm in window.messages}.values()))
            await store.record_messages([wm.message for wm in window.messages])
            status = await ingestor.submit(window)
            statuses[status.value] = statuses.get(status.value, 0) + 1
            closed += 1
    finally:
        await llm.aclose()
    seconds = time.perf_counter() - started
    sent = srv.requests[requests_before:]
    schema = sum(estimate_tokens(json.dumps(r.get("response_format") or {})) for r in sent)
    nodes = (await store.stats())["nodes"]
    facts = sum(r["count"] for r in nodes if r["label"] == "Fact" and r["guild_id"] in guild_ids)
    return ReplayFigures(
        messages=len(messages), windows=closed, calls=llm.meter.calls, requests=srv.calls - calls_before,
        prompt_tokens=srv.prompt_tokens - prompt_before, schema_tokens=schema,
        completion_tokens=srv.completion_tokens - completion_before, facts=facts, statuses=statuses, seconds=seconds,
    )  # fmt: skip


async def run_replay(messages: Sequence[WindowMessage], *, heap: str = "1g") -> ReplayFigures:
    """`replay_ingest` against a temporary ArcadeDB and a scripted server, both stopped afterwards."""
    with TempArcadeDB(heap=heap) as db, ScriptedLLMServer() as srv:
        try:
            return await replay_ingest(messages, await db.store("irc_replay"), srv)
        finally:
            await db.close_drivers()


def report(name: str, f: ReplayFigures) -> str:
    rows = [
        ("sample", name),
        ("messages", f"{f.messages}"),
        ("windows closed", f"{f.windows}"),
        ("LLM calls", f"{f.calls} ({f.requests} HTTP requests)"),
        ("calls per 100 messages", f"{f.calls_per_100:.2f}"),
        ("prompt tokens sent per message", f"{f.prompt_tokens_per_message:.1f} (+{f.schema_tokens_per_message:.1f} response schema)"),
        ("completion tokens per message", f"{f.completion_tokens_per_message:.1f}"),
        ("episodes", ", ".join(f"{k} {v}" for k, v in sorted(f.statuses.items()))),
        ("facts written", f"{f.facts}"),
        ("wall time", f"{f.seconds:.1f} s"),
    ]
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.irc_replay", description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=Path, help="an IRC *.raw.txt sample (default: the first shared dev sample)")
    parser.add_argument("--quick", action="store_true", help=f"only the first {QUICK_MESSAGES} messages")
    args = parser.parse_args(argv)
    try:
        path = args.sample or dev_samples(DATA_DIR)[0]
        sample = load_irc(path)
    except (FileNotFoundError, ValueError) as exc:
        parser.error(str(exc))
    messages = sample.messages[:QUICK_MESSAGES] if args.quick else sample.messages
    assert all(wm.message.guild_id == IRC_GUILD for wm in messages)
    figures = asyncio.run(run_replay(messages))
    print(report(sample.name + (f" (first {len(messages)} messages)" if args.quick else ""), figures))
    return 0 if figures.calls == figures.windows else 1


if __name__ == "__main__":
    raise SystemExit(main())
