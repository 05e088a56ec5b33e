"""Scale: a generated guild of 1,000 users, 10,000 entities and 100,000 facts (at --scale 10).

    python -m bench.scale [--scale 10] [--quick] [--authors 200]

The guild is loaded with UNWIND batches through bench-only Cypher files (bench/queries/), then on
each engine (embedded ArcadeDB; Neo4j 5 when a Docker engine answers, else skipped with the reason):
- load time, per kind of record;
- the reply context (all parts: author, related, channel, reply chain) for random authors, p50/p95;
- one episode write (no LLM: 5 facts, 2 entities, a relation, a corroboration, a supersession), p50/p95;
- forget-me for the user with the most facts: the transaction and the audit through the indexes the member
  waits for, then the thorough audit run after their answer (engine and bench CPU of each), with results;
- resident memory of the ArcadeDB child process (/proc RSS).
At scale s: 100*s users, 1,000*s entities, 10,000*s facts, 10 messages per user (100k facts,
10k messages at s=10); the forgotten user has min(1000, 100*s) facts about them.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
import os
import random
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.common import (
    TempArcadeDB,
    console,
    cpu_counters,
    machine_note,
    percentile,
    quiet_logs,
    reference_ms,
    steal_share,
    table,
)
from bench.cpu import CpuClock, CpuPerOp
from bench.queries import bench_read, bench_write
from bench.scale_growth import Size, compare_aot, growth_rows, measure_recording, measure_size, write_svg
from bench.topics import measure_topic_reads
from common.settings import ContextSettings, RecallTuning, WindowSettings
from common.text import name_key
from graph import context_reads
from graph.channels import modes as channel_modes
from graph.forget import finish_audit
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
    iso,
)
from graph.store import GraphStore
from recall.assemble import PART_ORDER, ContextRequest, ReplyContext
from recall.gather import build_context
from recall.rehearsal import Rehearsal, rehearse_at_start
from tests.support.ports import docker_missing

GUILD = "900000000000000001"
NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
WARM_UP = 150  # context builds before the first timed ones: the first hundred still ran 30-50% slower (JIT)
REHEARSE = True  # run the bot's start-up rehearsal (recall/rehearsal.py) before them, as a starting bot does
REHEARSAL_SECONDS: float | None = None  # None: the bot's default (CONTEXT_REHEARSAL_SECONDS); --quick shortens it
STEADY_AFTER = 2000  # builds before the steady-state timings
CURVE_BLOCK = 250
BATCH = 5000
PURGE_UP_TO = 100_000  # facts: above, the purge of the engine's files (not a target, over a minute) runs only with --purge
EPISODE_MESSAGES = 25
_ONSETS = "b c d f g h j k l m n p r s t v z br dr gr kr pl st tr sh ch th".split()
_VOWELS = "a e i o u ai ea io ou".split()
_CODAS = ["", "", "n", "r", "l", "s", "th", "x", "m"]
_WORDS = (
    "game weekend movie dinner trip plan music book work class match build raid server update patch stream "
    "coffee concert beach hike garden recipe guitar drawing code project deadline exam party"
).split()
KINDS = {  # entity kind -> fact templates ({s} subject, {e} entity)
    "place": ["{s} lives in {e}", "{s} is moving to {e}", "{s} visited {e} last summer", "{s} grew up in {e}"],
    "organization": ["{s} works at {e}", "{s} studies at {e}", "{s} volunteers at {e}", "{s} left {e}"],
    "pet": ["{s} has a cat named {e}", "{s} adopted a dog called {e}", "{s} walks {e} every morning"],
    "work": ["{s} is reading {e}", "{s} loves the series {e}", "{s} finished {e}", "{s} recommends {e}"],
    "object": ["{s} bought a {e}", "{s} is selling their {e}", "{s} repaired the {e}"],
    "event": ["{s} is going to {e}", "{s} organised {e}", "{s} missed {e}"],
}
PLAIN = [
    "{s} prefers tea over coffee",
    "{s} is learning Spanish",
    "{s} runs every weekend",
    "{s} is vegetarian",
    "{s} plays the piano",
    "{s} has two sisters",
    "{s} is a night owl",
    "{s} is training for a marathon",
    "{s} dislikes horror movies",
    "{s} collects vinyl records",
]
CATEGORIES = [
    "identity",
    "relationship",
    "location",
    "work",
    "education",
    "preference",
    "plan",
    "event",
    "possession",
    "health",
    "hobby",
    "other",
]


def _name(rng: random.Random, used: set[str]) -> str:
    while True:
        parts = [rng.choice(_ONSETS) + rng.choice(_VOWELS) for _ in range(rng.choice((2, 2, 3)))]
        word = ("".join(parts) + rng.choice(_CODAS)).capitalize()
        if word.casefold() not in used and len(word) >= 4:
            used.add(word.casefold())
            return word


@dataclass
class Guild:
    """A generated guild: rows for the bench Cypher files, and what the measurements pick from."""

    scale: float
    users: list[dict[str, Any]] = field(default_factory=list)
    channels: list[dict[str, Any]] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)
    episodes: list[dict[str, Any]] = field(default_factory=list)
    entities: list[dict[str, Any]] = field(default_factory=list)
    relations: list[dict[str, Any]] = field(default_factory=list)
    facts: list[dict[str, Any]] = field(default_factory=list)
    about_users: list[dict[str, Any]] = field(default_factory=list)
    about_entities: list[dict[str, Any]] = field(default_factory=list)
    mentions: list[dict[str, Any]] = field(default_factory=list)
    supersessions: list[dict[str, Any]] = field(default_factory=list)
    facts_of_user: dict[str, list[str]] = field(default_factory=dict)  # user id -> uuids of valid facts about them
    forget_id: str = ""

    @property
    def edges(self) -> int:
        return (
            len(self.about_users)
            + len(self.about_entities)
            + len(self.mentions)
            + 3 * len(self.facts)
            + len(self.relations)
            + len(self.supersessions)
            + 2 * len(self.messages)
            + sum(1 for m in self.messages if m["reply_to_id"])
        )


def generate(scale: float, seed: int = 7) -> Guild:
    rng = random.Random(seed)
    g = Guild(scale)
    used: set[str] = set()
    n_users, n_entities, n_facts = int(100 * scale), int(1000 * scale), int(10_000 * scale)
    n_channels = max(2, int(2 * scale))
    for i in range(n_users):
        name = _name(rng, used)
        g.users.append({"id": str(700_000_000_000_000_000 + i), "name": name.casefold(), "display_name": name})
    g.channels = [{"id": str(800_000_000_000_000_000 + c), "name": f"channel-{c}"} for c in range(n_channels)]
    for _ in range(n_entities):
        kind = rng.choice(list(KINDS))
        name = _name(rng, used) + (" " + _name(rng, used) if kind in ("organization", "event", "work") else "")
        aliases = [name.split()[0]] if " " in name else []
        g.entities.append(
            {
                "uuid": uuid.UUID(int=rng.getrandbits(128)).hex,
                "name": name,
                "name_key": name_key(name),
                "kind": kind,
                "aliases": aliases,
                "alias_text": " ".join(aliases),
            }
        )
    for e in g.entities:
        if e["kind"] in ("pet", "object") or rng.random() < 0.1:
            g.relations.append(
                {
                    "entity_uuid": e["uuid"],
                    "user_id": rng.choice(g.users)["id"],
                    "kind": {"pet": "pet", "object": "possession"}.get(e["kind"], "related"),
                }
            )
    # messages: 10 per user on average, every user at least one; channels' timelines over 60 days
    n_messages = 10 * n_users
    authors = [u["id"] for u in g.users] + [rng.choice(g.users)["id"] for _ in range(n_messages - n_users)]
    rng.shuffle(authors)
    start = NOW - timedelta(days=60)
    step = timedelta(days=60) / n_messages
    last_in: dict[str, str] = {}
    by_author: dict[str, list[dict[str, Any]]] = {}
    for i, author in enumerate(authors):
        channel = g.channels[rng.randrange(n_channels)]["id"]
        words = rng.sample(_WORDS, 6)
        if rng.random() < 0.2:
            words.insert(2, rng.choice(g.entities)["name"])
        if rng.random() < 0.1:
            words.insert(0, rng.choice(g.users)["display_name"])
        reply = last_in.get(channel) if rng.random() < 0.3 else None
        msg = {
            "id": str(9_000_000_000_000_000_000 + i),
            "channel_id": channel,
            "author_id": author,
            "content": " ".join(words),
            "created_at": iso(start + i * step),
            "reply_to_id": reply,
        }
        g.messages.append(msg)
        by_author.setdefault(author, []).append(msg)
        last_in[channel] = msg["id"]
    per_channel: dict[str, list[dict[str, Any]]] = {}
    for m in g.messages:
        per_channel.setdefault(m["channel_id"], []).append(m)
    episode_of: dict[str, str] = {}
    for channel, msgs in per_channel.items():
        for k in range(0, len(msgs), EPISODE_MESSAGES):
            chunk = msgs[k : k + EPISODE_MESSAGES]
            key = f"{channel}:{chunk[0]['id']}:{chunk[-1]['id']}"
            participants = list(dict.fromkeys(m["author_id"] for m in chunk))
            g.episodes.append(
                {
                    "key": key,
                    "uuid": uuid.UUID(int=rng.getrandbits(128)).hex,
                    "channel_id": channel,
                    "started_at": chunk[0]["created_at"],
                    "ended_at": chunk[-1]["created_at"],
                    "message_ids": [m["id"] for m in chunk],
                    "participant_ids": participants,
                    "summary": f"{len(participants)} members talked about " + ", ".join(rng.sample(_WORDS, 3)),
                    "fact_count": 0,
                }
            )
            episode_of.update(dict.fromkeys((m["id"] for m in chunk), key))
    # facts: the forgotten user gets min(1000, 100*s); the rest spread with a long tail
    g.forget_id = g.users[0]["id"]
    forget_facts = min(1000, int(100 * scale))
    weights = [1.0 / (r + 1) ** 0.6 for r in range(n_users)]
    rng.shuffle(weights)
    weights[0] = 0.0
    cum_weights = list(itertools.accumulate(weights))  # given once: `choices` would sum the weights at every call
    others = g.users[1:]
    names = {u["id"]: u["display_name"] for u in g.users}
    for i in range(n_facts):
        fid = uuid.UUID(int=rng.getrandbits(128)).hex
        if i < forget_facts:
            subject = g.forget_id
        elif rng.random() < 0.7:
            subject = rng.choices(g.users, cum_weights=cum_weights)[0]["id"]
        else:
            subject = None
        entity = rng.choice(g.entities)
        if subject is not None:
            if rng.random() < 0.6:
                text = rng.choice(KINDS[entity["kind"]]).format(s=names[subject], e=entity["name"])
                g.mentions.append({"fact_uuid": fid, "target_id": entity["uuid"]})
            else:
                text = rng.choice(PLAIN).format(s=names[subject])
            g.about_users.append({"fact_uuid": fid, "target_id": subject})
            g.facts_of_user.setdefault(subject, []).append(fid)
            reporter = subject if rng.random() < 0.6 or subject == g.forget_id else rng.choice(others)["id"]
        else:
            text = f"{entity['name']} is {rng.choice(['closed on Mondays', 'very popular', 'getting a sequel', 'on sale', 'recommended by many'])}"
            g.about_entities.append({"fact_uuid": fid, "target_id": entity["uuid"]})
            reporter = rng.choice(others)["id"]
        msg = rng.choice(by_author[reporter])
        valid = datetime.fromisoformat(msg["created_at"])
        expires = valid + timedelta(days=rng.choice((7, 30))) if rng.random() < 0.1 else None
        g.facts.append(
            {
                "uuid": fid,
                "text": text,
                "category": rng.choice(CATEGORIES),
                "importance": rng.randint(1, 10),
                "confidence": round(rng.uniform(0.5, 1.0), 2),
                "valid_at": msg["created_at"],
                "expires_at": iso(expires),
                "reporter_id": reporter,
                "message_id": msg["id"],
                "episode_key": episode_of[msg["id"]],
            }
        )
    # a few facts superseded by newer ones about the same person
    for subject, uuids in g.facts_of_user.items():
        if len(uuids) >= 4 and subject != g.forget_id:
            for old, new in zip(uuids[: len(uuids) // 20 + 1], uuids[-(len(uuids) // 20 + 1) :]):
                if old != new:
                    g.supersessions.append({"old_uuid": old, "new_uuid": new})
    closed = {s["old_uuid"] for s in g.supersessions}
    g.facts_of_user = {u: [f for f in fs if f not in closed] for u, fs in g.facts_of_user.items()}
    return g


# --- loading ------------------------------------------------------------------------------------------------
async def _batches(store: GraphStore, name: str, rows: list[dict[str, Any]], **params: Any) -> None:
    for k in range(0, len(rows), BATCH):
        await bench_write(store, name, rows=rows[k : k + BATCH], guild_id=GUILD, now=iso(NOW), **params)


async def load(store: GraphStore, g: Guild) -> list[tuple[str, int, float]]:
    """Load the guild; (what, rows, seconds) per step."""
    steps: list[tuple[str, int, float]] = []

    async def step(what: str, name: str, rows: list[dict[str, Any]], *more: tuple[str, list[dict[str, Any]]]) -> None:
        started = time.perf_counter()
        for name_, rows_ in ((name, rows), *more):
            await _batches(store, name_, rows_)
        steps.append((what, len(rows) + sum(len(r) for _, r in more), time.perf_counter() - started))

    started = time.perf_counter()
    await bench_write(store, "load_guild", guild_id=GUILD, name="generated guild", channels=g.channels)
    steps.append(("guild and channels", len(g.channels), time.perf_counter() - started))
    await step("users", "load_users", g.users)
    await step("messages (SENT)", "load_messages", g.messages)
    await step("replies (REPLIES_TO)", "load_replies", [m for m in g.messages if m["reply_to_id"]])
    await step("episodes (IN_EPISODE, TOOK_PART_IN)", "load_episodes", g.episodes)
    await step("entities", "load_entities", g.entities)
    await step("entity owners (RELATED_TO)", "load_relations", g.relations)
    # A superseded fact is created closed (label Closed, invalid_at and expired_at = its successor's valid_at)
    # rather than relabelled afterwards: ArcadeDB moves a relabelled vertex and rewrites every edge of it.
    closed_at = {s["old_uuid"]: s["new_uuid"] for s in g.supersessions}
    successors = set(closed_at.values())
    valid_at = {f["uuid"]: f["valid_at"] for f in g.facts if f["uuid"] in successors}
    open_facts = [f for f in g.facts if f["uuid"] not in closed_at]
    closed = [{**f, "invalid_at": valid_at[closed_at[f["uuid"]]]} for f in g.facts if f["uuid"] in closed_at]
    await step("facts (REPORTED_BY, FROM, EXTRACTED_FROM)", "load_facts", open_facts, ("load_closed_facts", closed))
    await step("facts about users (ABOUT)", "load_about_users", g.about_users)
    await step("facts about entities (ABOUT)", "load_about_entities", g.about_entities)
    await step("mentions (MENTIONS)", "load_mentions", g.mentions)
    await step("supersessions (SUPERSEDES)", "load_supersessions", g.supersessions)
    return steps


# --- measurements ---------------------------------------------------------------------------------------------
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
    engine_pid: int | None = None  # the ArcadeDB child, whose CPU time the forget-me figures read
    rss_loaded: float | None = None
    rss_end: float | None = None
    skipped: str | None = None
    recording: Any = None  # bench.scale_growth.Recording: messages recorded into the full-size graph
    aot: bool = False  # whether the engine started with the JDK's AOT cache of an earlier run
    engine_pid: int | None = None  # the embedded engine's process, whose CPU time is read from /proc
    context_cpu: CpuPerOp | None = None  # CPU per context build, engine and this process, after WARM_UP builds
    steady_cpu: CpuPerOp | None = None
    reads_cpu: dict[str, CpuPerOp] = field(default_factory=dict)
    rehearsal: Rehearsal | None = None  # the bot's start-up rehearsal of the reply reads, run before the builds


def _request(g: Guild, rng: random.Random) -> ContextRequest:
    author = rng.choice(g.users[1:])
    other = rng.choice(g.users[1:])
    entity = rng.choice(g.entities)
    reply = rng.choice(g.messages)
    text = f"hey {other['display_name']}, did you hear about {entity['name']}? the {rng.choice(_WORDS)} was fun"
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
        req = _request(g, rng)
        started = time.perf_counter()
        ctx = await build_context(store, req, settings)
        timed.append(((time.perf_counter() - started) * 1000, ctx))
    return timed, steal_share(before, cpu_counters()), clock.per_op(count)


async def measure_context(
    store: GraphStore, g: Guild, figures: Figures, authors: int, rng: random.Random, steady_after: int
) -> None:
    """Builds for random authors: `authors` timed after WARM_UP builds (a bot that has just started),
    then more in blocks of CURVE_BLOCK until `steady_after` builds in all, then `authors` timed again
    (a bot that has been running: the engine's JIT keeps compiling for the first thousands of reads)."""
    if REHEARSE:  # as the bot does when it starts (recall/rehearsal.py), before members' first replies
        rehearsal = ContextSettings() if REHEARSAL_SECONDS is None else ContextSettings(rehearsal_seconds=REHEARSAL_SECONDS)
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


def _reads(store: GraphStore, evidence: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """Each graph read of one context build, as build_context issues it (for the per-read breakdown); the
    evidence read for the facts `evidence` holds about the author (as the best facts of a build would be)."""
    from common.text import keywords
    from recall.gather import name_candidates

    settings = ContextSettings()
    tuning = RecallTuning()
    evidence = evidence or {}
    return {
        "context/facts (every fact source, the second hop included)": lambda q: context_reads.reply_facts(
            store.runner,
            GUILD,
            author_id=q.author_id,
            mentioned_ids=[],
            names=keywords(q.message_text),
            entity_keys=name_candidates(q.message_text),
            text=q.message_text,
            skip_ids=[q.author_id],
            now=q.at,
            author_limit=tuning.author_facts,
            pool=tuning.ranked_pool,
            limit=tuning.source_facts,
            hop_limit=tuning.hop_facts,
            channel_id=q.channel_id,
        ),
        "context/conversation (messages, summaries, chain; the recalled and older windows' searches beside it)": lambda q: (
            context_reads.conversation(
                store.runner,
                GUILD,
                q.channel_id,
                author_id=q.author_id,
                at=q.at,
                reply_to_id=q.reply_to_id,
                episodes=max(settings.channel_episodes, tuning.message_episodes),
                messages=settings.channel_messages,
                chain=tuning.chain_depth,
                text=q.message_text,
                recall=settings.recalled_messages,
                older_episodes=tuning.older_episodes,
            )
        ),
        "context/second_round (the best facts' turns, the recalled messages' facts)": lambda q: context_reads.second_round(
            store.runner,
            GUILD,
            q.channel_id,
            uuids=evidence.get(q.author_id, [])[: tuning.evidence_facts],
            message_ids=[q.reply_to_id] if q.reply_to_id else [],
            at=q.at,
        ),
        # not part of a build: the other reads that must not grow with history (issue 20)
        "store/messages_before (a window's earlier messages, extraction)": lambda q: store.messages_before(
            q.channel_id, q.at, WindowSettings().context_messages
        ),
        "memory status (last 7 days' activity, waiting and failed windows, channel listing)": lambda q: _memory_status(store),
        "store/guild_counts (whole-guild totals, no longer in memory status)": lambda q: store.guild_counts(GUILD),
    }


async def _memory_status(store: GraphStore) -> None:
    """The graph reads of `memory status` (bot/memory/_status.py and the channel listing of _modes.py)."""
    await store.episodes([EpisodeStatus.PENDING], guild_id=GUILD)
    await store.episodes([EpisodeStatus.FAILED], guild_id=GUILD)
    await store.recent_activity(GUILD, 7, now=NOW)
    await channel_modes(store, GUILD, recent_days=7)


async def measure_reads(store: GraphStore, g: Guild, figures: Figures, count: int, rng: random.Random) -> None:
    """Each read of the context alone, one at a time: where a build's time goes."""
    requests = [_request(g, rng) for _ in range(count)]
    for name, read in _reads(store, g.facts_of_user).items():
        for req in requests[:5]:
            await read(req)
        times = []
        clock = CpuClock(figures.engine_pid)
        for req in requests:
            started = time.perf_counter()
            await read(req)
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
        await store.record_messages(msgs)
        key = f"{channel}:{msgs[0].id}:{msgs[-1].id}"
        await store.close_episode(
            EpisodeClose(
                key=key,
                uuid=uuid.uuid4().hex,
                guild_id=GUILD,
                channel_id=channel,
                started_at=msgs[0].created_at,
                ended_at=msgs[-1].created_at,
                message_ids=tuple(m.id for m in msgs),
                participant_ids=tuple(a["id"] for a in authors),
            )
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
        await store.write_episode(write)
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
    the thorough audit runs after their answer (bot/memory/_unfinished.py), the files' purge at upkeep."""
    rows = await bench_read(store, "facts_about_user_count", user_id=g.forget_id)
    figures.forget_facts_before = int(rows[0]["facts"]) if rows else 0

    def cpu() -> tuple[float | None, float]:
        return _engine_cpu(figures.engine_pid), time.process_time()

    def spent(before: tuple[float | None, float]) -> tuple[float | None, float]:
        engine, own = cpu()
        return (None if engine is None or before[0] is None else engine - before[0]), own - before[1]

    before = cpu()
    report = await store.forget_user(g.forget_id, thorough_audit=False)
    figures.forget_cpu["transaction"] = spent(before)
    figures.forget_s, figures.forget_statements = report.seconds, report.statements
    figures.forget_indexed_audit_s, figures.forget_indexed_residue = report.indexed_audit_seconds, list(report.indexed_residue)
    figures.forget_deleted = dict(report.deleted)
    before, started = cpu(), time.perf_counter()
    assert report.scope is not None
    _, residue = await finish_audit(store.runner, report.scope)
    figures.forget_audit_s, figures.forget_cpu["thorough audit"] = time.perf_counter() - started, spent(before)
    figures.residue = list(residue)
    if purge:
        before = cpu()
        figures.forget_files_s = (await store.purge_if_due()).seconds
        figures.forget_cpu["files purge"] = spent(before)


def _forget_lines(f: Figures) -> list[str]:
    def cpu(step: str) -> str:
        engine, own = f.forget_cpu.get(step, (None, 0.0))
        return f"CPU: engine {'n/a' if engine is None else f'{engine:.2f} s'}, bench {own:.2f} s"

    deleted = ", ".join(f"{k} {v}" for k, v in f.forget_deleted.items())
    indexed = "clean" if not f.forget_indexed_residue else f"NOT clean: {f.forget_indexed_residue[:5]}"
    return [
        f"{f.engine}: forget-me of a user with {f.forget_facts_before} facts about them: deleted {deleted}",
        f"  the member waits for: one write transaction of {f.forget_statements} statements, {f.forget_s:.2f} s "
        f"({cpu('transaction')}), the audit through the indexes inside it {f.forget_indexed_audit_s:.2f} s: {indexed}",
        f"  after their answer, the thorough audit (every property of every node and relationship): {f.forget_audit_s:.2f} s "
        f"({cpu('thorough audit')}): {'clean, nothing left' if not f.residue else f'NOT clean: {f.residue[:5]}'}",
        f"  the purge of the engine's files (the next upkeep pass, out of the request): {f.forget_files_s:.2f} s ({cpu('files purge')})"
        if f.forget_files_s is not None
        else f"  the purge of the engine's files (the next upkeep pass, out of the request): not run above {PURGE_UP_TO:,} facts "
        "(not a target; --purge runs it)",
    ]


async def run_engine(
    figures: Figures,
    store: GraphStore,
    g: Guild,
    authors: int,
    writes: int,
    rss: Any = None,
    steady_after: int = STEADY_AFTER,
    purge: bool = True,
) -> None:
    rng = random.Random(11)
    figures.load = await load(store, g)
    figures.rss_loaded = rss() if rss else None
    # This process holds the generated guild (about a million Python objects) that a bot never holds;
    # left to the collector, its full passes over them land inside the timed context builds.
    gc.collect()
    gc.freeze()
    await measure_context(store, g, figures, authors, rng, steady_after)
    await measure_reads(store, g, figures, min(authors, 50), rng)
    await measure_topic_reads(store, GUILD, g, figures, min(authors, 50), rng)  # bench/topics.py
    await measure_writes(store, g, figures, writes, rng)
    figures.recording = await measure_recording(store, GUILD, [c["id"] for c in g.channels], g.users[1:])
    await measure_forget(store, g, figures, purge)
    figures.rss_end = rss() if rss else None


async def run_arcadedb(g: Guild, authors: int, writes: int, steady_after: int, purge: bool = True) -> Figures:
    figures = Figures("ArcadeDB (embedded, Bolt)")
    with TempArcadeDB() as db:
        store = await db.store("scale")
        figures.aot = db.aot_used
        figures.engine_pid = db.pid
        await run_engine(figures, store, g, authors, writes, db.rss_mb, steady_after, purge)
        await db.close_drivers()
    return figures


async def run_neo4j(g: Guild, authors: int, writes: int, steady_after: int, purge: bool = True) -> Figures:
    figures = Figures("Neo4j 5 (Docker)")
    reason = docker_missing()
    if reason:
        figures.skipped = reason
        return figures
    from testcontainers.neo4j import Neo4jContainer

    from graph.engines.neo4j import Neo4jEngine

    with Neo4jContainer("neo4j:5-community", password="grapevine-bench") as container:
        engine = Neo4jEngine(container.get_connection_url(), "neo4j", "grapevine-bench")
        driver = engine.driver()
        store = GraphStore(driver, engine)
        await store.setup_schema()
        await run_engine(figures, store, g, authors, writes, steady_after=steady_after, purge=purge)
        await driver.close()
    return figures


def rehearsal_text(done: Rehearsal | None) -> str:
    if done is None:
        return "no start-up rehearsal (--no-rehearsal): the builds were timed on an engine as it starts"
    return (
        f"the bot's start-up rehearsal ran first: {done.builds:,} builds of {done.requests} requests made of the "
        f"channels' latest messages in {done.seconds:.0f} s (half of the time at most), then {WARM_UP} builds, then the timed ones"
    )


def _share(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def report(g: Guild, all_figures: list[Figures], authors: int, since: list[int] | None = None) -> None:
    out = console()
    out.print(machine_note(since))
    title = (
        f"Scale: {len(g.users):,} users, {len(g.entities):,} entities, {len(g.facts):,} facts, "
        f"{len(g.messages):,} messages, {len(g.episodes):,} episodes, about {g.edges:,} edges"
    )
    rows = []
    for f in all_figures:
        if f.skipped:
            rows.append([f.engine, "skipped", "", "", "", "", "", "", "", ""])
            continue
        load_s = sum(s for _, _, s in f.load)
        residue = "clean" if not f.residue else f"{len(f.residue)} left"
        steady = f"{percentile(f.steady_ms, 50):.1f} / {percentile(f.steady_ms, 95):.1f}" if f.steady_ms else "not run"
        rows.append([
            f.engine, f"{load_s:.1f}", f"{percentile(f.context_ms, 50):.1f}", f"{percentile(f.context_ms, 95):.1f}", steady,
            f"{percentile(f.write_ms, 50):.1f}", f"{percentile(f.write_ms, 95):.1f}",
            f"{f.forget_s:.2f} ({f.forget_deleted.get('Fact', 0)} facts)", residue,
            f"{f.rss_loaded:.0f} / {f.rss_end:.0f}" if f.rss_loaded and f.rss_end else "n/a",
        ])  # fmt: skip
    steady_after = max((f.steady_after for f in all_figures), default=0)
    headers = [
        "engine",
        "load s",
        f"context p50 ms ({authors}, after {WARM_UP} builds)",
        "context p95 ms",
        f"context p50 / p95 ms after {steady_after:,} builds",
        "episode write p50 ms",
        "episode write p95 ms",
        "forget-me s",
        "residue audit",
        "RSS MB loaded / end",
    ]
    out.print(table(title, headers, rows))
    for f in all_figures:
        if f.skipped:
            out.print(f"{f.engine}: SKIPPED: {f.skipped}")
            continue
        out.print(
            table(
                f"{f.engine}: load steps (UNWIND batches of {BATCH:,})",
                ["step", "rows", "seconds", "rows/s"],
                [[w, f"{n:,}", f"{s:.1f}", f"{n / s:,.0f}" if s else "-"] for w, n, s in f.load],
            )
        )
        if f.recording is not None:
            r = f.recording
            out.print(
                f"{f.engine}: message recording into this graph, {r.sent:,} messages flat out from {len(g.channels)} channels "
                f"(live windows, recorder tick 50 ms): {r.per_second:,.0f} messages/s written, "
                f"{'none lost' if r.stored == r.sent else f'{r.sent - r.stored:,} LOST'}, event loop late at most "
                f"{r.lag_max_ms:.0f} ms, CPU stolen {_share(r.steal)}"
            )
        if f.reads:
            out.print(
                table(
                    f"{f.engine}: each read of a context build alone, one at a time (build_context runs them concurrently), "
                    "then the extraction prompt's earlier messages and memory status",
                    ["read", "p50 ms", "p95 ms", "CPU ms per read (engine + client)"],
                    [
                        [
                            n,
                            f"{percentile(v, 50):.1f}",
                            f"{percentile(v, 95):.1f}",
                            f.reads_cpu[n].text() if n in f.reads_cpu else "n/a",
                        ]
                        for n, v in f.reads.items()
                    ],
                )
            )
        if f.curve:
            out.print(
                table(
                    f"{f.engine}: context build while the engine warms up (blocks of random authors)",
                    ["builds before", "builds", "p50 ms", "p95 ms", "CPU stolen"],
                    [
                        [f"{start:,}", f"{len(ms)}", f"{percentile(ms, 50):.1f}", f"{percentile(ms, 95):.1f}", _share(steal)]
                        for start, ms, steal in f.curve
                    ],
                )
            )
        filled = ", ".join(f"{name} {count}/{len(f.context_ms)}" for name, count in f.parts_filled.items())
        out.print(
            f"{f.engine}: context parts filled: {filled}; mean context {sum(f.context_tokens) / max(1, len(f.context_tokens)):.0f} tokens; "
            f"timed after {WARM_UP} warm-up builds"
        )
        out.print(f"{f.engine}: {rehearsal_text(f.rehearsal)}")
        out.print(
            f"{f.engine}: CPU time stolen by the hypervisor while the context builds were timed: "
            f"{_share(f.context_steal)} after {WARM_UP} builds, {_share(f.steady_steal)} after {f.steady_after:,}"
            f"; the engine started {'with' if f.aot else 'without'} the JDK's AOT cache of an earlier run"
        )
        if f.context_cpu is not None:
            steady_cpu = f", after {f.steady_after:,}: {f.steady_cpu.text()}" if f.steady_cpu else ""
            out.print(
                f"{f.engine}: CPU per context build (the engine's process from /proc and this process; the machine's "
                f"load does not inflate it as it does the wall-clock ms): after {WARM_UP} builds {f.context_cpu.text()}"
                f"{steady_cpu}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
            )
        for line in _forget_lines(f):
            out.print(line)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.scale", description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=10.0, help="10 = 1,000 users, 10,000 entities, 100,000 facts")
    parser.add_argument("--authors", type=int, default=200, help="random authors whose context is built")
    parser.add_argument("--writes", type=int, default=100, help="episode writes timed")
    parser.add_argument(
        "--steady", type=int, default=STEADY_AFTER, help="context builds before the steady-state timings (0: none)"
    )
    parser.add_argument("--quick", action="store_true", help="scale 0.5, 50 authors, 30 writes, steady after 500")
    parser.add_argument(
        "--purge",
        action="store_true",
        help=f"time the purge of the engine's files after forget-me above {PURGE_UP_TO:,} facts too (over a minute at 1M)",
    )
    parser.add_argument("--no-neo4j", action="store_true", help="skip Neo4j even when Docker answers")
    parser.add_argument(
        "--no-rehearsal",
        action="store_true",
        help="time the context builds without the bot's start-up rehearsal of the reply reads (recall/rehearsal.py)",
    )
    parser.add_argument(
        "--sizes",
        type=float,
        nargs="*",
        default=None,
        help="smaller scales whose context builds are timed too, each on a fresh engine (default: scale/10 and "
        "scale/100, down to 0.5)",
    )
    parser.add_argument("--svg", type=Path, default=None, help="write the curve of context p95 against facts here")
    parser.add_argument(
        "--aot-pairs",
        type=int,
        default=0,
        help="only compare fresh engines without and with the JDK's AOT cache, this many pairs, at --scale",
    )
    args = parser.parse_args(argv)
    global REHEARSE, REHEARSAL_SECONDS
    if args.quick:
        args.scale, args.authors, args.writes, args.steady = 0.5, 50, 30, 500
        REHEARSAL_SECONDS = 5.0
    REHEARSE = not args.no_rehearsal
    if args.sizes is None:
        args.sizes = [s for s in (args.scale / 100, args.scale / 10) if s >= 0.5]
    quiet_logs()
    counters = cpu_counters()
    out = console()
    if args.aot_pairs:
        runs = asyncio.run(compare_aot(args.scale, args.authors, args.aot_pairs))
        rows = [[f"{n // 2 + 1}", "with" if s.aot else "without", f"{percentile(s.early_ms, 50):.1f}", f"{s.p95():.1f}",
                 _share(s.early_steal)] for n, s in enumerate(runs)]  # fmt: skip
        out.print(table(f"Fresh engines at {runs[0].facts:,} facts: context builds {args.authors} after {WARM_UP}",
                        ["pair", "AOT cache", "p50 ms", "p95 ms", "stolen"], rows))  # fmt: skip
        out.print(machine_note(counters))
        return 0
    out.print(f"reference work before the run: {reference_ms():.0f} ms (the same work is timed after it)")
    started = time.perf_counter()
    g = generate(args.scale)
    out.print(f"generated in {time.perf_counter() - started:.1f} s")

    sizes: list[Size] = []

    async def go() -> list[Figures]:
        for scale in sorted(args.sizes):
            sizes.append(await measure_size(scale, args.authors, args.steady))
            out.print(f"size {sizes[-1].facts:,} facts measured (its load {sizes[-1].load_s:.0f} s)")
        purge = args.purge or len(g.facts) <= PURGE_UP_TO
        figures = [await run_arcadedb(g, args.authors, args.writes, args.steady, purge)]
        if args.no_neo4j:
            skipped = Figures("Neo4j 5 (Docker)")
            skipped.skipped = "switched off with --no-neo4j"
            figures.append(skipped)
        else:
            figures.append(await run_neo4j(g, args.authors, args.writes, args.steady, purge))
        return figures

    all_figures = asyncio.run(go())
    report(g, all_figures, args.authors, counters)
    full = all_figures[0]
    if not full.skipped:
        sizes.append(Size(args.scale, len(g.facts), len(g.messages), sum(s for _, _, s in full.load), full.context_ms,
                          full.steady_ms, full.context_steal, full.steady_steal, full.aot, full.context_cpu,
                          full.steady_cpu))  # fmt: skip
        out.print(
            table(
                f"{full.engine}: the reply context as the guild grows ({args.authors} random authors per size, each size "
                "on a fresh engine; growth: p95 against the size ten times smaller)",
                [
                    "facts",
                    "messages",
                    "load s",
                    "AOT cache",
                    f"p50 / p95 ms after {WARM_UP}",
                    "stolen",
                    "growth",
                    f"p50 / p95 ms after {full.steady_after:,}",
                    "stolen",
                    "growth",
                    f"CPU ms per build after {WARM_UP} (engine + client)",
                    f"after {full.steady_after:,}",
                ],  # fmt: skip
                growth_rows(sizes),
            )
        )
        if args.svg is not None and len(sizes) > 1:
            one, five, _ = os.getloadavg()
            note = (
                f"bench.scale --scale {args.scale:g}, {os.cpu_count()} CPUs, load average {one:.1f} / {five:.1f}, "
                f"CPU stolen {_share(steal_share(counters, cpu_counters()))}"
            )
            write_svg(args.svg, sizes, WARM_UP, full.steady_after, note)
            out.print(f"curve written to {args.svg}")
    out.print(f"whole run: {(time.perf_counter() - started) / 60:.1f} min")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
