"""What ingesting real chat costs in LLM calls and tokens: one shared IRC dev sample replayed through the
live window policy (simulated time) and the full ingestor.

    python -m bench.irc_replay [--sample PATH] [--quick]

The ingestor talks to a scripted OpenAI-compatible server on loopback with the real openai client, and
writes to a temporary ArcadeDB started for the run. The server answers every request with a minimal
valid extraction (a summary and one fact about the window's first author, reported by them, citing
m1), so the figures measure the pipeline, not a model: messages, windows closed, calls, calls per 100
messages, prompt and completion tokens per message (estimated with `common.tokens`, the prompt as
sent in the chat messages; the response schema, which a hosted API also bills, is shown apart).
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence
from pathlib import Path

from bench.common import TempArcadeDB
from ingest.windows import WindowMessage
from tests.support.datasets import DATA_DIR, IRC_GUILD, dev_samples, load_irc
from tests.support.replay_harness import ReplayFigures, replay_ingest
from tests.support.scripted_llm import ScriptedLLMServer

QUICK_MESSAGES = 300


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
        (
            "prompt tokens sent per message",
            f"{f.prompt_tokens_per_message:.1f} (+{f.schema_tokens_per_message:.1f} response schema)",
        ),
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
