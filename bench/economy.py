"""Cost per message: LLM calls and tokens to turn the IRC dev samples into memory.

    python -m bench.economy [--data DIR] [--quick] [--no-graphiti] [--pace N] [--paces 1,2,4,8,16]

Every contender sees the same messages and is answered by the same scripted server, which counts
calls and tokens on its side with one estimate (`common.tokens.estimate_tokens`):

- grapevine: the live window policy (`ingest.replay`, built-in defaults), one extraction call per
  closed window through the real pipeline (`Ingestor`, a batch a window) writing to a throw-away ArcadeDB;
- per-message extraction: one call per message, with the prompt such an extractor needs: the
  message and its author's current facts (grapevine's own prompt builder on a one-message window,
  the author's facts as known facts);
- graphiti-core's `add_episode` on the same windows (bench.graphiti_contender: Kuzu in memory, the
  local all-MiniLM-L6-v2 embeddings when installed), its LLM client answering every call as a model
  would from the same scripted facts.

The scripted answers are deterministic (bench.chat_facts): a message saying something about its
author and naming pieces of software or hardware yields a fact about the author for each, at most
3; each window's answer keeps at most 5 facts per person and 15 in all.

grapevine runs twice: unbatched (one call per closed window, as the bot did before batching) and
batched (`ingest.ingestor`: the guild's closed windows queued and sent together, on a simulated
clock). `--pace N` stretches every timestamp N times (a quieter community); the pace table then
runs every contender at each of `--paces` and adds the reply links seen by one call and the delay
from a message to the call that extracts it (p50/p95, the LLM's own latency left out). Per-message
extraction does not depend on the pace: it is run once and its row repeated.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from bench.chat_facts import PER_MESSAGE, ScriptFact, summary_of, window_facts
from bench.common import (
    TempArcadeDB,
    console,
    machine_note,
    quiet_logs,
    read_prompt,
    scripted_llm,
    table,
)
from bench.graphiti_contender import graphiti_missing, run_graphiti
from bench.pace import PACES, closed_at, schedule, stretch
from bench.queries import bench_read
from bench.windows import PaceRow, pace_table, seen_in_calls
from common.settings import ExtractionSettings, WindowSettings
from common.tokens import estimate_tokens
from graph.models import Channel, FactView, Guild
from graph.writes.discord_records import upsert_channel, upsert_guild, upsert_users
from graph.writes.messages import record_messages
from ingest.extraction.window_prompt import Extraction, PromptInput, build_prompt
from ingest.ingestor import Ingestor
from ingest.replay import replay
from ingest.windows import ClosedWindow, WindowMessage
from llm.client import OpenAILLM
from tests.support.datasets import DATA_DIR, IRC_GUILD, IrcSample, dev_samples, load_irc
from tests.support.prompt_reader import batch_parts, prompt_of, system_of
from tests.support.prompt_reader import sections as prompt_sections
from tests.support.scripted_llm import ScriptedLLMServer, prompt_tokens_of

QUICK_MESSAGES = 400  # --quick: the first 400 messages of the first sample
AUTHOR_FACTS = 50  # facts of the author shown to a per-message extractor (MEMORY_MAX_FACTS_PER_USER)


# --- the scripted model's answers ------------------------------------------------------------------------
def grapevine_answer(request: dict[str, Any]) -> dict[str, Any]:
    """The scripted model's answer to one grapevine extraction prompt (a window, a batch of windows or
    one message), written with that prompt's own refs (each window of a batch with its own)."""
    parts = batch_parts(request)
    if parts:
        return {"windows": [{"window": head, **grapevine_answer(part)} for head, part in parts]}
    refs = read_prompt(request)
    lines = [(refs.names.get(u or "", "?"), content) for _, u, content in refs.messages]
    facts = window_facts(lines)
    name_ref = {name: ref for ref, name in refs.names.items()}
    entities: list[dict[str, Any]] = []
    entity_ref: dict[str, str] = {}
    out: list[dict[str, Any]] = []
    known_fact = {text: ref for ref, text in refs.facts.items()}
    for i, f in facts:
        m_ref, u_ref, _ = refs.messages[i]
        if f.thing not in entity_ref:
            known = refs.entities.get(f.thing.casefold())
            entity_ref[f.thing] = known or f"E{sum(1 for r in entity_ref.values() if r.startswith('E')) + 1}"
            if known is None:
                entities.append(
                    {
                        "ref": entity_ref[f.thing],
                        "name": f.thing,
                        "kind": "object",
                        "aliases": [],
                        "owner": None,
                        "relation": None,
                    }
                )
        subject = u_ref or name_ref.get(f.author, "U1")
        out.append({
            "text": f.text, "about": [subject], "mentions": [entity_ref[f.thing]], "reported_by": [subject],
            "source_messages": [m_ref], "category": f.category, "importance": 4, "confidence": 0.9,
            "valid_at": "", "expiry": f.expiry, "supersedes": [], "corroborates": known_fact.get(f.text),
        })  # fmt: skip
    summary = summary_of(lines, facts) if len(lines) > 1 else ""
    return {"summary": summary, "entities": entities, "facts": out}


# --- the contenders ---------------------------------------------------------------------------------------
@dataclass
class Usage:
    name: str
    messages: int = 0
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    schema_tokens: int = 0  # response_format schemas sent beside the prompt (not in the server's count)
    facts: int = 0
    seconds: float = 0.0
    note: str = ""
    by_prompt: Counter[str] = field(default_factory=Counter)  # calls by call type (graphiti's response model)
    prompt_tokens_by: Counter[str] = field(default_factory=Counter)
    completion_tokens_by: Counter[str] = field(default_factory=Counter)
    sections: dict[str, float] = field(default_factory=dict)  # mean prompt tokens per call, by prompt section
    delays: list[float] = field(default_factory=list)  # seconds from a message to the call that extracted it

    def per_100(self, value: float) -> float:
        return 100 * value / self.messages if self.messages else 0.0


def _take(srv: ScriptedLLMServer, usage: Usage) -> Usage:
    usage.calls, usage.prompt_tokens, usage.completion_tokens = srv.calls, srv.prompt_tokens, srv.completion_tokens
    usage.schema_tokens = sum(estimate_tokens(json.dumps(r["response_format"])) for r in srv.requests if r.get("response_format"))
    for r in srv.requests:
        if "bench_call" in r:
            usage.by_prompt[r["bench_call"]] += 1
            usage.prompt_tokens_by[r["bench_call"]] += prompt_tokens_of(r)
            usage.completion_tokens_by[r["bench_call"]] += estimate_tokens(json.dumps(r["bench_reply"]))
    sections: Counter[str] = Counter()
    ours = [r for r in srv.requests if "bench_reply" not in r]
    for request in ours:
        sections["system prompt"] += estimate_tokens(system_of(request))
        for title, lines in prompt_sections(prompt_of(request)).items():
            sections[title.lower()] += estimate_tokens("\n".join([title, *lines]))
    usage.sections = {k: v / len(ours) for k, v in sections.items()} if ours else {}
    srv.reset()
    return usage


def distinct_ids(sample: IrcSample) -> IrcSample:
    """Message ids of the loader are line numbers, the same in every sample: prefix them with the sample's
    name so the samples' messages stay apart in one guild (a store MERGEs messages on their id)."""
    messages = [
        WindowMessage(wm.message.model_copy(update={"id": f"{sample.name}:{wm.message.id}"}), wm.author) for wm in sample.messages
    ]
    links = [(f"{sample.name}:{parent}", f"{sample.name}:{reply}") for parent, reply in sample.reply_links]
    return IrcSample(sample.name, messages, links)


def _channel(sample: IrcSample) -> str:
    return sample.messages[0].message.channel_id


async def run_grapevine(samples: list[IrcSample], srv: ScriptedLLMServer, llm: OpenAILLM, *, batched: bool = False) -> Usage:
    usage = Usage("grapevine batched (closed windows queued per guild)" if batched else "grapevine (one call per closed window)")
    started = time.perf_counter()
    windows = WindowSettings()
    with TempArcadeDB() as db:
        store = await db.store("economy")
        clock = BenchClock()
        if batched:
            ingestor = Ingestor(store, llm, ExtractionSettings(), windows, rng=lambda: 0.0, clock=clock)
        else:  # a call per closed window, as it closes
            ingestor = Ingestor(store, llm, ExtractionSettings(batch_messages=1), windows, rng=lambda: 0.0)
        await upsert_guild(store, Guild(id=IRC_GUILD, name="IRC"))
        for sample in samples:
            await upsert_channel(store, Channel(id=_channel(sample), guild_id=IRC_GUILD, name=sample.name))
            await upsert_users(store, list({wm.author.id: wm.author for wm in sample.messages}.values()))
            for start in range(0, len(sample.messages), 500):
                await record_messages(store, [wm.message for wm in sample.messages[start : start + 500]])
            closed = sorted(replay(sample.messages, windows), key=lambda w: closed_at(w, windows))
            if batched:
                usage.delays += await _batched(ingestor, closed, clock, windows)
            else:
                for window in closed:
                    await ingestor.submit(window)
                    usage.delays += [
                        (closed_at(window, windows) - wm.message.created_at).total_seconds() for wm in window.messages
                    ]
            usage.messages += len(sample.messages)
        rows = await bench_read(store, "count_facts", guild_id=IRC_GUILD)
        usage.facts = int(rows[0]["facts"]) if rows else 0
        await db.close_drivers()
    usage.seconds = time.perf_counter() - started
    return _take(srv, usage)


class BenchClock:
    """The batching ingestor's clock: the replayed time."""

    def __init__(self) -> None:
        self.now = datetime.min

    def __call__(self) -> datetime:
        return self.now


async def _batched(ingestor: Ingestor, closed: list[ClosedWindow], clock: BenchClock, windows: WindowSettings) -> list[float]:
    """The sample's windows closed in time order into the batching ingestor, its timer run at every
    age deadline; returns each message's delay (the clock when its window was extracted minus its time)."""
    age = timedelta(seconds=ingestor.extraction.batch_age_seconds)
    waiting: dict[str, ClosedWindow] = {}
    delays: list[float] = []

    async def due(now: datetime) -> None:
        clock.now = now
        for key in await ingestor.extract_due(IRC_GUILD):
            window = waiting.pop(key, None)
            if window is not None:
                delays.extend((now - wm.message.created_at).total_seconds() for wm in window.messages)

    for window in closed:
        at = closed_at(window, windows)
        while waiting and (deadline := min(w.started_at for w in waiting.values()) + age) <= at:
            await due(deadline)
        clock.now = at
        await ingestor.close(window)
        waiting[window.key] = window
        await due(at)
    while waiting:
        await due(min(w.started_at for w in waiting.values()) + age)
    return delays


def _fact_view(f: ScriptFact, author_id: str, at: datetime) -> FactView:
    uid = hashlib.sha1(f"{author_id}|{f.text}".encode()).hexdigest()
    return FactView(
        uuid=uid,
        text=f.text,
        category=f.category,
        importance=4,
        confidence=0.9,
        valid_at=at,
        about=(f.author,),
        about_ids=(author_id,),
        reporters=((author_id, f.author, at),),
    )


class PlainClient:
    """The request grapevine's client sends (model, messages, the Extraction schema as response_format),
    posted without the openai client's per-call schema conversion: 11k calls in reasonable time.
    The scripted server sees, counts and answers the same request."""

    def __init__(self, base_url: str) -> None:
        import httpx
        from openai.lib._parsing._completions import type_to_response_format_param

        self.http = httpx.AsyncClient(base_url=base_url, timeout=30.0)
        self.response_format = type_to_response_format_param(Extraction)

    async def extract(self, messages: list[dict[str, str]]) -> Extraction:
        body = {"model": "scripted-model", "messages": messages, "response_format": self.response_format}
        response = await self.http.post("/chat/completions", json=body)
        response.raise_for_status()
        return Extraction.model_validate_json(response.json()["choices"][0]["message"]["content"])

    async def aclose(self) -> None:
        await self.http.aclose()


async def run_per_message(samples: list[IrcSample], srv: ScriptedLLMServer) -> Usage:
    """One call per message: the message and its author's current facts (kept in memory here)."""
    usage = Usage("per-message extraction")
    started = time.perf_counter()
    settings = ExtractionSettings()
    client = PlainClient(srv.base_url)

    async def one_sample(sample: IrcSample) -> int:
        facts: defaultdict[str, dict[str, FactView]] = defaultdict(dict)  # author id -> text -> fact
        written = 0
        for wm in sample.messages:
            known = list(facts[wm.author.id].values())[-AUTHOR_FACTS:]
            window = ClosedWindow(wm.message.channel_id, wm.message.guild_id, (wm,), (), "message")
            inp = PromptInput(
                window=window,
                members=[],
                candidates=known[::-1],
                known_entities=[],
                max_facts_per_person=settings.max_facts_per_person,
                max_facts_per_window=settings.max_facts_per_window,
                max_message_chars=settings.max_message_chars,
            )
            messages, _ = build_prompt(inp)
            answer = await client.extract(messages)
            for fact in answer.facts:
                if fact.corroborates is None and fact.text not in facts[wm.author.id]:
                    sf = ScriptFact(wm.author.display_name, "", fact.text, fact.expiry != "permanent")
                    facts[wm.author.id][fact.text] = _fact_view(sf, wm.author.id, wm.message.created_at)
                    written += 1
        return written

    try:
        for sample in samples:
            usage.facts += await one_sample(sample)
            usage.messages += len(sample.messages)
    finally:
        await client.aclose()
    usage.seconds = time.perf_counter() - started
    return _take(srv, usage)


# --- graphiti-core ----------------------------------------------------------------------------------------
async def run_graphiti_usage(samples: list[IrcSample], srv: ScriptedLLMServer) -> Usage:
    run = await run_graphiti(samples, srv.base_url)
    usage = Usage("graphiti-core add_episode (same windows)", messages=run.messages, facts=run.edges, seconds=run.seconds)
    usage.note = f"embedder {run.embedder}"
    if run.unscripted:
        usage.note += "; answered with a minimal value (no script): " + ", ".join(f"{k} {v}" for k, v in run.unscripted.items())
    return _take(srv, usage)


# --- the report --------------------------------------------------------------------------------------------
def responder(request: dict[str, Any]) -> Any:
    if "bench_reply" in request:  # graphiti's client sends the answer its script chose; counted all the same
        return request["bench_reply"]
    return grapevine_answer(request)


def report(usages: list[Usage], skipped: list[tuple[str, str]], samples: list[IrcSample]) -> None:
    out = console()
    out.print(machine_note())
    total = sum(len(s.messages) for s in samples)
    headers = (
        "contender",
        "LLM calls",
        "calls/100 msgs",
        "prompt tok/100",
        "completion tok/100",
        "total tok/100",
        "schema tok/100*",
        "facts",
        "run s",
    )
    rows: list[tuple[object, ...]] = [
        (
            u.name,
            u.calls,
            f"{u.per_100(u.calls):.2f}",
            f"{u.per_100(u.prompt_tokens):,.0f}",
            f"{u.per_100(u.completion_tokens):,.0f}",
            f"{u.per_100(u.prompt_tokens + u.completion_tokens):,.0f}",
            f"{u.per_100(u.schema_tokens):,.0f}",
            u.facts,
            f"{u.seconds:.0f}",
        )
        for u in usages
    ]
    rows += [(name, "not run", "", "", "", "", "", "", "") for name, _ in skipped]
    out.print(table(f"LLM cost per 100 messages: {len(samples)} IRC samples, {total} messages", headers, rows))
    out.print(
        "* schema tok: the Extraction JSON schema sent as response_format beside the prompt; the server's "
        "prompt count leaves it out (graphiti writes its schemas into the prompt text, so they are counted)."
    )
    windows, facts = scripted_facts(samples)
    out.print(
        f"scripted extraction, the same for every contender: {windows} windows of {total / windows:.1f} messages, "
        f"{facts / windows:.2f} facts per window (one per thing a message tells about its author, at most "
        f"{PER_MESSAGE} per message, 5 per person and 15 per window)."
        if windows
        else "no windows"
    )
    out.print(
        "facts: Fact nodes in the graph (grapevine; a restated fact corroborates), distinct facts kept "
        "(per-message), entity edges of the add_episode results (graphiti)."
    )
    for name, reason in skipped:
        out.print(f"{name}: NOT RUN: {reason}")
    base = next((u for u in usages if u.name.startswith("grapevine")), None)
    if base and base.calls:
        base_tokens = base.prompt_tokens + base.completion_tokens
        for u in usages:
            if u is base:
                continue
            tokens = u.prompt_tokens + u.completion_tokens
            out.print(
                f"ratio {u.name} / grapevine: {u.calls / base.calls:.1f}x the calls, "
                f"{tokens / base_tokens if base_tokens else 0:.1f}x the tokens "
                f"({u.prompt_tokens / base.prompt_tokens if base.prompt_tokens else 0:.1f}x prompt, "
                f"{u.completion_tokens / base.completion_tokens if base.completion_tokens else 0:.1f}x completion)"
            )
    with_sections = [u for u in usages if u.sections]
    if with_sections:
        names = list(dict.fromkeys(k for u in with_sections for k in u.sections))
        out.print(
            table(
                "Prompt tokens per call by section (grapevine's prompt builder)",
                ["section", *(u.name for u in with_sections)],
                [[n, *(f"{u.sections.get(n, 0):,.0f}" for u in with_sections)] for n in names],
            )
        )
    for u in usages:
        if u.by_prompt:
            kinds = [
                (
                    kind,
                    n,
                    f"{u.per_100(n):.2f}",
                    f"{n / windows:.2f}" if windows else "",
                    f"{u.per_100(u.prompt_tokens_by[kind]):,.0f}",
                    f"{u.per_100(u.completion_tokens_by[kind]):,.0f}",
                )
                for kind, n in u.by_prompt.most_common()
            ]
            out.print(
                table(
                    f"{u.name}: calls by response model",
                    ("call", "calls", "calls/100 msgs", "per window", "prompt tok/100", "completion tok/100"),
                    kinds,
                )
            )
        if u.note:
            out.print(f"{u.name}: {u.note}")


def scripted_facts(samples: list[IrcSample]) -> tuple[int, int]:
    """(closed windows, scripted facts in them) of the samples under the live window policy."""
    windows = facts = 0
    for sample in samples:
        for window in replay(sample.messages, WindowSettings()):
            windows += 1
            facts += len(window_facts([(wm.author.display_name, wm.message.content) for wm in window.messages]))
    return windows, facts


async def run(samples: list[IrcSample], with_graphiti: bool) -> tuple[list[Usage], list[tuple[str, str]]]:
    usages: list[Usage] = []
    skipped: list[tuple[str, str]] = []
    with scripted_llm(responder) as (srv, llm):
        usages.append(await run_grapevine(samples, srv, llm))
        usages.append(await run_grapevine(samples, srv, llm, batched=True))
        usages.append(await run_per_message(samples, srv))
        graphiti = await _graphiti(samples, srv, with_graphiti)
        if isinstance(graphiti, Usage):
            usages.append(graphiti)
        else:
            skipped.append(graphiti)
        await llm.aclose()
    return usages, skipped


GRAPHITI = "graphiti-core add_episode (same windows)"


async def _graphiti(samples: list[IrcSample], srv: ScriptedLLMServer, wanted: bool) -> Usage | tuple[str, str]:
    reason = graphiti_missing() if wanted else "switched off with --no-graphiti"
    if reason is not None:
        return GRAPHITI, reason
    try:
        return await run_graphiti_usage(samples, srv)
    except Exception as exc:  # noqa: BLE001 - report why it did not run, never invent numbers
        srv.reset()
        return GRAPHITI, f"it failed: {type(exc).__name__}: {str(exc)[:300]}"


async def run_paces(
    samples: list[IrcSample], paces: Sequence[float], per_message: Usage | None, *, with_graphiti: bool
) -> list[PaceRow]:
    """Every contender at each pace: calls and prompt tokens counted by the server, links seen by one call
    (`bench.windows.seen_in_calls` on the same windows and batches), delay from the run's clock."""
    rows: list[PaceRow] = []
    windows, extraction = WindowSettings(), ExtractionSettings()
    with scripted_llm(responder) as (srv, llm):
        for pace in paces:
            stretched = [stretch(s, pace) for s in samples]
            for batched in (True, False):
                usage = await run_grapevine(stretched, srv, llm, batched=batched)
                links = seen = 0
                for sample in stretched:
                    closed, plan = schedule(sample, windows, extraction if batched else None)
                    got = seen_in_calls(sample, closed, plan)
                    links, seen = links + got[0], seen + got[1]
                name = "grapevine batched" if batched else "grapevine unbatched"
                rows.append(
                    PaceRow(name, pace, usage.messages, usage.calls, usage.prompt_tokens, links, seen, tuple(usage.delays))
                )
            if per_message is not None:
                rows.append(PaceRow("per-message extraction (pace-free, run once)", pace, per_message.messages,
                                    per_message.calls, per_message.prompt_tokens, 1, 0, (0.0,)))  # fmt: skip
            if not with_graphiti:
                rows.append(
                    PaceRow("graphiti-core (left out: --no-graphiti, or --quick without --paces)", pace, 0, 0, 0, 0, 0, ())
                )
                continue
            graphiti = await _graphiti(stretched, srv, with_graphiti)
            if isinstance(graphiti, Usage):
                rows.append(PaceRow("graphiti-core add_episode", pace, graphiti.messages, graphiti.calls,
                                    graphiti.prompt_tokens, 0, 0, ()))  # fmt: skip
            else:
                rows.append(PaceRow(f"graphiti-core: NOT RUN ({graphiti[1][:60]})", pace, 0, 0, 0, 0, 0, ()))
        await llm.aclose()
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.economy", description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA_DIR, help="shared data folder (or a folder of *.raw.txt)")
    parser.add_argument("--quick", action="store_true", help=f"only the first {QUICK_MESSAGES} messages of one sample")
    parser.add_argument("--no-graphiti", action="store_true", help="skip graphiti-core")
    parser.add_argument("--pace", type=float, default=1.0, help="stretch every timestamp this many times (default 1)")
    parser.add_argument(
        "--paces", default=None, help="the pace table's paces, comma-separated ('' for none; default 1,2,4,8,16, --quick: none)"
    )
    args = parser.parse_args(argv)
    quiet_logs()
    try:
        paths = dev_samples(args.data)
        chosen = args.paces if args.paces is not None else "" if args.quick else ",".join(map(str, PACES))
        paces = [float(p) for p in chosen.split(",") if p.strip()]
    except FileNotFoundError as exc:
        parser.error(str(exc))
    except ValueError:
        parser.error(f"--paces takes numbers separated by commas, not {args.paces!r}")
    if args.pace <= 0 or any(p <= 0 for p in paces):
        parser.error("a pace must be above 0")
    samples = [distinct_ids(load_irc(p)) for p in paths[: 1 if args.quick else None]]
    if args.quick:
        samples = [IrcSample(s.name, s.messages[:QUICK_MESSAGES], s.reply_links) for s in samples]
    usages, skipped = asyncio.run(run([stretch(s, args.pace) for s in samples], not args.no_graphiti))
    report(usages, skipped, samples)
    if paces:
        per_message = next((u for u in usages if u.name.startswith("per-message")), None)
        rows = asyncio.run(
            run_paces(samples, paces, per_message, with_graphiti=not args.no_graphiti and not (args.quick and args.paces is None))
        )
        extraction = ExtractionSettings()
        console().print(pace_table(rows, "prompt tok/100",  f"LLM cost and delay by pace, {len(samples)} IRC samples (batch: "
                                         f"{extraction.batch_messages} messages, {extraction.batch_tokens} tokens or "
                                         f"{extraction.batch_age_seconds / 60:g} min)"))  # fmt: skip
        console().print("prompt tok/100: counted by the scripted server. links seen: both messages in one call (one window, "
                        "its earlier messages, or one batch). delay: message to extraction call, LLM latency left out.")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
