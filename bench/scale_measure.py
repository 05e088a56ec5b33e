"""bench.scale's measurements on a loaded guild (bench.scale_guild): the reply context built for random authors, each
of its reads alone (made by recall's own read functions), episode writes, message recording, and forget-me."""

from __future__ import annotations

import os
import random
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from bench.common import cpu_counters, steal_share
from bench.cpu import CpuClock, CpuPerOp
from bench.queries import bench_read
from bench.scale_guild import GUILD, NOW, WORDS, Guild
from common.settings import ContextSettings, RecallTuning, WindowSettings
from graph.models import (
    Corroboration,
    EntityWrite,
    EpisodeClose,
    EpisodeStatus,
    EpisodeWrite,
    FactWrite,
    Message,
    NodeRef,
    RelationWrite,
    Report,
    User,
)
from graph.privacy.audit import finish_audit
from graph.privacy.channels import modes as channel_modes
from graph.privacy.forget import forget_user
from graph.privacy.guards.consent import Consent
from graph.privacy.purge import purge_if_due
from graph.reads import context as context_reads
from graph.reads import fact_model
from graph.reads.activity import recent_activity
from graph.reads.backlog import episodes_by_status, messages_before
from graph.reads.stats import backfill, guild_counts, guild_totals
from graph.store import GraphStore
from graph.writes.episodes import close_episode, write_episode
from graph.writes.messages import record_messages
from recall.assemble import PART_ORDER, ContextRequest, Gathered, ReplyContext
from recall.expand import second_read, second_read_facts
from recall.gather import build_context, conversation_read, fact_read, gather
from recall.rehearsal import Rehearsal, rehearse_at_start

WARM_UP = 150  # context builds before the first timed ones: the first hundred still ran 30-50% slower (JIT)
STEADY_AFTER = 2000  # builds before the steady-state timings
CURVE_BLOCK = 250
PURGE_UP_TO = 100_000  # facts: above, the purge of the engine's files (not a target, over a minute) runs only with --purge
RECORDING_MESSAGES = 5000  # handed over flat out, from every channel of the generated guild

Read = Callable[[ContextRequest, Gathered], Awaitable[Any]]  # a request and its first round's gathering
FACTS_HELD = "context/facts (every fact source, the second hop included): the read model and context/fact_lookup"
FACTS_STATEMENT = "context/facts as one statement, without the read model (the same facts)"
LIVE = "a reply at its channel's newest message, the channels' talk held"
TALK_HELD = f"context/conversation from the read model and the searches ({LIVE})"
TALK_STATEMENT = "context/conversation as statements, without the read model (the same requests)"
ROUND_HELD = f"context/second_round from the read model ({LIVE})"
ROUND_STATEMENT = "context/second_round as one statement, without the read model (the same requests)"
LIVE_BUILD = f"build_context, every read of a reply ({LIVE})"
STATUS = "memory status (whole-guild totals, last 7 days' activity, waiting and failed windows, channel listing)"


@dataclass
class Recording:
    sent: int = 0
    stored: int = 0
    per_second: float = 0.0
    lag_max_ms: float = 0.0
    steal: float | None = None


async def measure_recording(
    store: GraphStore,
    guild_id: str,
    channels: Sequence[str],
    users: Sequence[dict[str, str]],
    messages: int = RECORDING_MESSAGES,
) -> Recording:
    """Messages handed over flat out from every channel, through the live windows and the recorder, into the
    full-size graph (bench.recording's path): the rate written, whether all arrived, the event loop's lateness."""
    from bench.recording import T0, WORDS, offered

    consent = Consent(store)
    await consent.load()
    people = [User(id=u["id"], name=u["name"], display_name=u["display_name"]) for u in users[:500]]
    batch = []
    for n in range(messages):
        who = people[(n * 7) % len(people)]
        text = " ".join(WORDS[(n * k) % len(WORDS)] for k in range(1, 9))
        message = Message(id=f"96{n:016d}", guild_id=guild_id, channel_id=channels[n % len(channels)], author_id=who.id,
                          content=text, created_at=T0 + timedelta(milliseconds=n))  # fmt: skip
        batch.append((message, who))
    run = await offered(store, consent, batch, 0, 0.05, "flat out")
    return Recording(
        run.sent, run.stored, run.sent / run.seconds if run.seconds else 0.0, max(run.lag_ms, default=0.0), run.steal
    )


@dataclass
class Figures:
    engine: str
    load: list[tuple[str, int, float]] = field(default_factory=list)
    context_ms: list[float] = field(default_factory=list)  # after WARM_UP builds
    steady_ms: list[float] = field(default_factory=list)  # after `steady_after` builds
    steady_after: int = 0
    context_steal: float | None = None  # share of CPU time stolen by the hypervisor while the builds were timed
    steady_steal: float | None = None
    curve: list[tuple[int, list[float], float | None]] = field(default_factory=list)  # (builds before, ms, steal)
    context_tokens: list[int] = field(default_factory=list)
    parts_filled: dict[str, int] = field(default_factory=dict)
    reads: dict[str, list[float]] = field(default_factory=dict)  # each context read alone, ms
    write_ms: list[float] = field(default_factory=list)
    forget_s: float = 0.0  # the one write transaction (deletion, redaction, the index-driven audit)
    forget_audit_s: float = 0.0  # the thorough audit after it (every property of every node)
    forget_statements: int = 0
    forget_files_s: float | None = None  # the purge of the engine's files afterwards (the bot's next upkeep pass)
    forget_deleted: dict[str, int] = field(default_factory=dict)
    forget_facts_before: int = 0
    residue: list[Any] | None = None
    forget_indexed_audit_s: float = 0.0  # the audit through the indexes inside the transaction (part of forget_s)
    forget_indexed_residue: list[Any] | None = None  # what that audit found: the member's answer waits for it
    forget_cpu: dict[str, tuple[float | None, float]] = field(default_factory=dict)  # engine and bench CPU s, by step
    rss_loaded: float | None = None
    rss_end: float | None = None
    skipped: str | None = None
    recording: Recording | None = None  # messages recorded into the full-size graph
    aot: bool = False  # whether the engine started with the JDK's AOT cache of an earlier run
    engine_pid: int | None = None  # the embedded engine's process, whose CPU time is read from /proc
    context_cpu: CpuPerOp | None = None  # CPU per context build, engine and this process, after WARM_UP builds
    steady_cpu: CpuPerOp | None = None
    reads_cpu: dict[str, CpuPerOp] = field(default_factory=dict)
    model_facts: int = 0  # the reply's read model of the guild (graph/reads/fact_model.py): facts held
    model_bytes: int = 0  # and the memory its records take
    model_load_s: float = 0.0  # read from the graph, at start
    status_ms: list[float] = field(default_factory=list)  # memory status's graph reads (measure_status)
    totals_ms: list[float] = field(default_factory=list)  # of them, the kept whole-guild totals alone
    counts_backfill_s: float = 0.0  # the kept totals of the loaded guild (bench load writes around the counted statements)
    talk_channels: int = 0  # the channels whose talk the model holds after the reads of replies at their newest message
    talk_messages: int = 0
    talk_bytes: int = 0
    rehearsal: Rehearsal | None = None  # the bot's start-up rehearsal of the reply reads, run before the builds


def reply_request(g: Guild, rng: random.Random) -> ContextRequest:
    author = rng.choice(g.users[1:])
    other = rng.choice(g.users[1:])
    entity = rng.choice(g.entities)
    reply = rng.choice(g.messages)
    text = f"hey {other['display_name']}, did you hear about {entity['name']}? the {rng.choice(WORDS)} was fun"
    at = datetime.fromisoformat(reply["created_at"]) + timedelta(minutes=1)  # a reply chain within its time bound
    return ContextRequest(
        guild_id=GUILD,
        channel_id=reply["channel_id"],
        author_id=author["id"],
        message_text=text,
        message_id=None,
        at=at,
        reply_to_id=reply["id"],
    )


def _live_request(g: Guild, newest: dict[str, dict[str, Any]], rng: random.Random) -> ContextRequest:
    """`reply_request` in a channel, at a minute after its newest message and replying to it (what a live bot answers)."""
    reply = newest[rng.choice(sorted(newest))]
    req = reply_request(g, rng)
    at = datetime.fromisoformat(reply["created_at"]) + timedelta(minutes=1)
    return replace(req, channel_id=reply["channel_id"], reply_to_id=reply["id"], at=at)


async def _timed_builds(
    store: GraphStore, g: Guild, count: int, rng: random.Random, engine_pid: int | None = None
) -> tuple[list[tuple[float, ReplyContext]], float | None, CpuPerOp]:
    """`count` builds for random requests, each with its ms, the share of CPU time the hypervisor
    stole while they ran, and the CPU per build (the engine's process and this one: load does not inflate it)."""
    settings = ContextSettings()
    timed = []
    before = cpu_counters()
    clock = CpuClock(engine_pid)
    for _ in range(count):
        req = reply_request(g, rng)
        started = time.perf_counter()
        ctx = await build_context(store, req, settings)
        timed.append(((time.perf_counter() - started) * 1000, ctx))
    return timed, steal_share(before, cpu_counters()), clock.per_op(count)


async def measure_context(
    store: GraphStore,
    g: Guild,
    figures: Figures,
    authors: int,
    rng: random.Random,
    steady_after: int,
    rehearsal: ContextSettings | None,
) -> None:
    """Builds for random authors: `authors` timed after WARM_UP builds (a bot that has just started),
    then more in blocks of CURVE_BLOCK until `steady_after` builds in all, then `authors` timed again
    (a bot that has been running: the engine's JIT keeps compiling for the first thousands of reads).
    With `rehearsal`, the bot's start-up rehearsal runs first, for its `rehearsal_seconds`."""
    if rehearsal is not None:  # as the bot does when it starts (recall/rehearsal.py), before members' first replies
        figures.rehearsal = await rehearse_at_start(store, rehearsal, NOW)
    await _timed_builds(store, g, WARM_UP, rng)  # the JIT's first pass and the driver's connection pool
    early, figures.context_steal, figures.context_cpu = await _timed_builds(store, g, authors, rng, figures.engine_pid)
    figures.context_ms = [ms for ms, _ in early]
    figures.context_tokens = [ctx.total_tokens for _, ctx in early]
    figures.parts_filled = dict.fromkeys(PART_ORDER, 0)
    for _, ctx in early:
        for part in ctx.parts:
            figures.parts_filled[part.name] += part.items > 0
    built = WARM_UP + authors
    while built < steady_after:
        block, steal, _ = await _timed_builds(store, g, min(CURVE_BLOCK, steady_after - built), rng)
        figures.curve.append((built, [ms for ms, _ in block], steal))
        built += len(block)
    if steady_after > WARM_UP + authors:
        steady, figures.steady_steal, figures.steady_cpu = await _timed_builds(store, g, authors, rng, figures.engine_pid)
        figures.steady_ms = [ms for ms, _ in steady]
        figures.steady_after = built


def _reads(store: GraphStore, settings: ContextSettings, tuning: RecallTuning) -> dict[str, Read]:
    """Each graph read of one context build, made by the functions `build_context` makes it with (for the per-read
    breakdown; the second round's from the first round's gathering, not timed); then reads outside a build."""
    return {
        FACTS_HELD: lambda q, _: fact_read(store, q, tuning),
        FACTS_STATEMENT: lambda q, _: fact_read(store, q, tuning, statement=True),
        "context/conversation (messages, summaries, chain; the recalled and older windows' searches beside it)": lambda q, _: (
            conversation_read(store, q, settings, tuning)
        ),
        "context/second_round (the best facts' turns, the recalled messages' facts)": lambda q, first: second_read(
            store, q, first, tuning
        ),
        # not part of a build: the other reads that must not grow with history
        "store/messages_before (a window's earlier messages, extraction)": lambda q, _: messages_before(
            store, q.channel_id, q.at, WindowSettings().context_messages
        ),
        STATUS: lambda q, _: _memory_status(store),
        "memory status' whole-guild totals, kept as the writes happen (one node read)": lambda q, _: guild_totals(store, GUILD),
        "memory status' last 7 days' activity (channel_time and created_key / closed_key ranges)": lambda q, _: recent_activity(
            store, GUILD, 7, now=NOW
        ),
        "store/guild_counts (the totals recounted: what the kept ones are checked against)": lambda q, _: guild_counts(
            store, GUILD
        ),
    }


def _live_reads(store: GraphStore, settings: ContextSettings, tuning: RecallTuning) -> dict[str, Read]:
    """The reads the read model of the channels' talk answers (graph/reads/talk_model.py), and the same as statements,
    for replies at their channel's newest message; and a whole build for them."""

    def second(q: ContextRequest, first: Gathered, model: bool) -> Awaitable[Any]:
        read = context_reads.second_round if model else context_reads.second_round_read
        recalled = [m.id for m in first.recalled] if tuning.matched_facts else []
        return read(store, context_reads.RoundRequest(q.guild_id, q.channel_id, uuids=second_read_facts(first, tuning),
                    message_ids=recalled, at=q.at, span=tuning.evidence_span, limit=tuning.matched_facts))  # fmt: skip

    return {
        TALK_HELD: lambda q, _: conversation_read(store, q, settings, tuning),
        TALK_STATEMENT: lambda q, _: conversation_read(store, q, settings, tuning, statement=True),
        ROUND_HELD: lambda q, first: second(q, first, True),
        ROUND_STATEMENT: lambda q, first: second(q, first, False),
        LIVE_BUILD: lambda q, _: build_context(store, q, settings, tuning=tuning),
    }


async def _memory_status(store: GraphStore) -> None:
    """The graph reads of `memory status` (bot/memory/_status.py and the channel listing of _modes.py)."""
    await guild_totals(store, GUILD)
    await episodes_by_status(store, [EpisodeStatus.PENDING], guild_id=GUILD)
    await episodes_by_status(store, [EpisodeStatus.FAILED], guild_id=GUILD)
    recent = await recent_activity(store, GUILD, 7, now=NOW)  # read once for both, as the bot does
    await channel_modes(store, GUILD, recent_days=7, activity=recent)


async def measure_counts_backfill(store: GraphStore, figures: Figures) -> None:
    """The loaded guild's kept totals set by the schema's backfill (what a store made before they were kept gets at
    its first start): the bench's loader writes around the counted statements, as an older store was written."""
    started = time.perf_counter()
    await backfill(store)
    figures.counts_backfill_s = time.perf_counter() - started
    assert await guild_totals(store, GUILD) == await guild_counts(store, GUILD)


STATUS_CALLS = 20  # memory status reads timed per size, after 3 untimed


async def measure_status(store: GraphStore) -> tuple[list[float], list[float]]:
    """Wall ms of `memory status`'s graph reads, and of its kept totals alone, each read STATUS_CALLS times."""
    timed: list[list[float]] = []
    for read in (lambda: _memory_status(store), lambda: guild_totals(store, GUILD)):
        for _ in range(3):
            await read()
        times = []
        for _ in range(STATUS_CALLS):
            started = time.perf_counter()
            await read()
            times.append((time.perf_counter() - started) * 1000)
        timed.append(times)
    return timed[0], timed[1]


async def measure_read_model(store: GraphStore, figures: Figures) -> None:
    """The reply's read model of the guild read again from the graph (what a bot does at start): how long, how big."""
    model = fact_model.model_of(store)
    model.drop(GUILD)
    started = time.perf_counter()
    held = await fact_model.held(store, GUILD, None)
    figures.model_load_s = time.perf_counter() - started
    figures.model_facts = len(held.facts)
    figures.model_bytes = model.size_bytes()


async def measure_reads(store: GraphStore, g: Guild, figures: Figures, count: int, rng: random.Random) -> None:
    """Each read of the context alone, one at a time: where a build's time goes."""
    settings, tuning = ContextSettings(), RecallTuning()
    requests = [reply_request(g, rng) for _ in range(count)]
    firsts = [await gather(store, req, settings, tuning=tuning) for req in requests]  # the second round's input
    await _time_reads(_reads(store, settings, tuning), requests, firsts, figures, warm=5)
    newest: dict[str, dict[str, Any]] = {}
    for m in g.messages:
        if m["channel_id"] not in newest or m["created_at"] > newest[m["channel_id"]]["created_at"]:
            newest[m["channel_id"]] = m
    live = [_live_request(g, newest, rng) for _ in range(count)]
    firsts = [await gather(store, req, settings, tuning=tuning) for req in live]
    await _time_reads(_live_reads(store, settings, tuning), live, firsts, figures, warm=len(live))  # every channel held
    model = fact_model.model_of(store)
    talk = [t for held in model.guilds.values() for t in held.talk.values()]
    figures.talk_channels, figures.talk_messages = len(talk), sum(len(t.messages) for t in talk)
    figures.talk_bytes = model.talk_bytes()


async def _time_reads(
    reads: dict[str, Read], requests: list[ContextRequest], firsts: list[Gathered], figures: Figures, warm: int
) -> None:
    for name, read in reads.items():
        for req, first in list(zip(requests, firsts))[:warm]:
            await read(req, first)
        times = []
        clock = CpuClock(figures.engine_pid)
        for req, first in zip(requests, firsts):
            started = time.perf_counter()
            await read(req, first)
            times.append((time.perf_counter() - started) * 1000)
        figures.reads[name] = times
        figures.reads_cpu[name] = clock.per_op(len(requests))


async def measure_writes(store: GraphStore, g: Guild, figures: Figures, count: int, rng: random.Random) -> None:
    """Close an episode of 5 new messages (not timed), then time its write: one transaction."""
    for n in range(count + 5):
        channel = rng.choice(g.channels)["id"]
        authors = rng.sample(g.users[1:], 2)
        at = NOW + timedelta(minutes=n)
        msgs = [
            Message(
                id=f"95{n:06d}{k}",
                guild_id=GUILD,
                channel_id=channel,
                author_id=authors[k % 2]["id"],
                content=f"bench message {k}",
                created_at=at + timedelta(seconds=k),
            )
            for k in range(5)
        ]
        await record_messages(store, msgs)
        key = f"{channel}:{msgs[0].id}:{msgs[-1].id}"
        await close_episode(
            store,
            EpisodeClose(
                key=key,
                uuid=uuid.uuid4().hex,
                guild_id=GUILD,
                channel_id=channel,
                started_at=msgs[0].created_at,
                ended_at=msgs[-1].created_at,
                message_ids=tuple(m.id for m in msgs),
                participant_ids=tuple(a["id"] for a in authors),
            ),
        )
        entities = [EntityWrite(uuid=uuid.uuid4().hex, name=f"Bench Thing {n}-{k}", kind="object") for k in range(2)]
        facts = []
        for k in range(5):
            author = authors[k % 2]["id"]
            older = g.facts_of_user.get(author, [])
            supersedes = (older.pop(),) if k == 0 and older else ()
            facts.append(FactWrite(
                uuid=uuid.uuid4().hex, text=f"{authors[k % 2]['display_name']} bench fact {n}-{k}", valid_at=at,
                about=(NodeRef(kind="user", id=author),), mentions=(NodeRef(kind="entity", id=entities[k % 2].uuid),),
                reports=(Report(user_id=author, message_id=msgs[k].id, at=msgs[k].created_at),),
                source_message_ids=(msgs[k].id,), supersedes=supersedes,
            ))  # fmt: skip
        known = g.facts_of_user.get(authors[1]["id"]) or g.facts_of_user.get(authors[0]["id"]) or []
        corroborations = (
            (
                Corroboration(
                    fact_uuid=known[0], report=Report(user_id=authors[0]["id"], message_id=msgs[0].id, at=msgs[0].created_at)
                ),
            )
            if known
            else ()
        )
        write = EpisodeWrite(
            key=key,
            guild_id=GUILD,
            summary="two members talked",
            entities=tuple(entities),
            relations=(
                RelationWrite(entity_uuid=entities[0].uuid, kind="possession", target=NodeRef(kind="user", id=authors[0]["id"])),
            ),
            facts=tuple(facts),
            corroborations=corroborations,
        )
        started = time.perf_counter()
        await write_episode(store, write)
        if n >= 5:  # the first few warm up
            figures.write_ms.append((time.perf_counter() - started) * 1000)


def _engine_cpu(pid: int | None) -> float | None:
    """CPU seconds (user + system) the engine's process has used, from /proc/<pid>/stat; None without it."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
    except (OSError, TypeError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure_forget(store: GraphStore, g: Guild, figures: Figures, purge: bool = True) -> None:
    """As the bot runs it: the member waits for the transaction (with the audit through the indexes inside it);
    the thorough audit runs after their answer (bot/memory/unfinished_forgets.py), the files' purge at upkeep."""
    rows = await bench_read(store, "facts_about_user_count", user_id=g.forget_id)
    figures.forget_facts_before = int(rows[0]["facts"]) if rows else 0

    def cpu() -> tuple[float | None, float]:
        return _engine_cpu(figures.engine_pid), time.process_time()

    def spent(before: tuple[float | None, float]) -> tuple[float | None, float]:
        engine, own = cpu()
        return (None if engine is None or before[0] is None else engine - before[0]), own - before[1]

    before = cpu()
    report = await forget_user(store, g.forget_id, thorough_audit=False)
    figures.forget_cpu["transaction"] = spent(before)
    figures.forget_s, figures.forget_statements = report.seconds, report.statements
    figures.forget_indexed_audit_s, figures.forget_indexed_residue = report.indexed_audit_seconds, list(report.indexed_residue)
    figures.forget_deleted = dict(report.deleted)
    before, started = cpu(), time.perf_counter()
    assert report.scope is not None
    _, residue = await finish_audit(store, report.scope)
    figures.forget_audit_s, figures.forget_cpu["thorough audit"] = time.perf_counter() - started, spent(before)
    figures.residue = list(residue)
    if purge:
        before = cpu()
        figures.forget_files_s = (await purge_if_due(store)).seconds
        figures.forget_cpu["files purge"] = spent(before)
