"""Shared helpers of the benchmarks: a throw-away ArcadeDB, the scripted LLM server with the real
client, extraction prompts read back into their refs, percentiles and rich tables.

Benchmarks print figures; nothing here asserts a timing.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from common.settings import (
    LLMSettings,
)
from graph.engines.arcadedb import ArcadeDBEngine, ArcadeDBServer
from graph.schema import setup_schema
from graph.store import GraphStore, writer
from llm.client import OpenAILLM
from llm.meter import UsageMeter
from tests.support.ports import free_port
from tests.support.prompt_reader import Prompt
from tests.support.scripted_llm import Responder, ScriptedLLMServer

REPO = Path(__file__).resolve().parents[1]


# --- settings that ignore the environment ---------------------------------------------------------


# --- a throw-away ArcadeDB --------------------------------------------------------------------------
AOT_DIR = Path(tempfile.gettempdir()) / "grapevine-bench-aot"


@dataclass
class TempArcadeDB:
    """The embedded engine in a child process, in a temporary folder removed on exit.

    with TempArcadeDB() as db:
        store = await db.store("bench")
    """

    heap: str = "2g"
    aot: bool = True  # the JDK's AOT cache, kept across bench runs in AOT_DIR (the first run records it)
    aot_used: bool = field(default=False, init=False)  # whether this engine started with a cache
    root: Path = field(init=False)
    engine: ArcadeDBEngine = field(init=False)
    server: ArcadeDBServer = field(init=False)
    _stores: list[GraphStore] = field(default_factory=list, init=False)

    def __enter__(self) -> TempArcadeDB:
        self.root = Path(tempfile.mkdtemp(prefix="grapevine-bench-"))
        self.engine = ArcadeDBEngine(password=uuid.uuid4().hex, database="bench", bolt_port=free_port(), http_port=free_port())
        self.server = ArcadeDBServer(self.root, self.engine, heap=self.heap, aot=self.aot, aot_dir=AOT_DIR)
        self.aot_used = self.aot and any(AOT_DIR.glob("engine-*.aot"))
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    @property
    def pid(self) -> int | None:
        proc = getattr(self.server, "_proc", None)
        return proc.pid if proc is not None else None

    def rss_mb(self) -> float | None:
        """Resident memory of the ArcadeDB child process (VmRSS from /proc), in MB."""
        pid = self.pid
        try:
            status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
        except (OSError, TypeError):
            return None
        match = re.search(r"^VmRSS:\s+(\d+) kB", status, re.MULTILINE)
        return int(match[1]) / 1024 if match else None

    async def store(self, database: str, embedding_model: str = "", embedding_dimension: int | None = None) -> GraphStore:
        """A GraphStore with its schema set up on a new, empty database (one driver per database), with
        the fact vector index when an embedding model is named."""
        engine = self.engine.for_database(database)
        if await engine.database_exists():
            await engine.drop_database()
        await engine.create_database()
        graph = writer(engine)
        self._stores.append(graph)
        await setup_schema(graph, embedding_model, embedding_dimension)
        return graph

    async def close_drivers(self) -> None:
        for store in self._stores:
            await store.close()
        self._stores.clear()


# --- the scripted LLM server with the real client ----------------------------------------------------
@contextmanager
def scripted_llm(responder: Responder) -> Iterator[tuple[ScriptedLLMServer, OpenAILLM]]:
    """The scripted server answering from `responder`, and grapevine's own client talking to it."""
    with ScriptedLLMServer() as srv:
        srv.responder = responder
        settings = LLMSettings(
            base_url=srv.base_url,
            api_key="bench",
            model="scripted-model",
            timeout=30.0,
            max_attempts=2,
            reply_model=None,
        )
        llm = OpenAILLM(settings, UsageMeter(), min_wait=0.001, max_wait=0.01)
        yield srv, llm


# --- extraction prompts read back ---------------------------------------------------------------------
@dataclass
class PromptRefs:
    """The refs of one grapevine extraction prompt, as a model reads them."""

    users: dict[str, str] = field(default_factory=dict)  # user id -> U ref
    names: dict[str, str] = field(default_factory=dict)  # U ref -> shown name
    messages: list[tuple[str, str | None, str]] = field(default_factory=list)  # (m ref, U ref, content)
    facts: dict[str, str] = field(default_factory=dict)  # F ref -> text
    entities: dict[str, str] = field(default_factory=dict)  # casefolded name -> K ref


def read_prompt(request: dict[str, Any]) -> PromptRefs:
    """Participants, window messages, known facts and entities of an extraction request."""
    prompt = Prompt(request)
    refs = PromptRefs()
    for p in prompt.participants.values():
        refs.users[p.discord_id] = p.ref
        refs.names[p.ref] = p.name
    refs.messages = [(m.ref, m.author_ref if m.author_ref.startswith("U") else None, m.content) for m in prompt.messages.values()]
    refs.facts = {f.ref: f.text for f in prompt.facts.values()}
    for ref, name in prompt.entities.items():
        refs.entities.setdefault(name.casefold(), ref)
    return refs


# --- figures and tables ---------------------------------------------------------------------------------
def percentile(values: Sequence[float], p: float) -> float:
    """The p-th percentile (0-100), nearest-rank on sorted values; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1))))
    return ordered[rank]


def mean(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else 0.0


def console() -> Console:
    """Plain text (no markup: notes quote things like `.[bench]`), wide enough for the tables."""
    return Console(width=None if sys.stdout.isatty() else 150, highlight=False, markup=False, soft_wrap=True)


def cpu_counters() -> list[int] | None:
    """The machine's CPU time counters from /proc/stat (user, nice, system, idle, iowait, irq, softirq,
    steal), or None where there is no /proc/stat."""
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            return [int(v) for v in stat.readline().split()[1:9]]
    except (OSError, ValueError):
        return None


def reference_ms() -> float:
    """The best of three timings of one fixed piece of pure-Python work (sorting 200,000 seeded random
    numbers): how fast this machine is right now, to compare runs made at different times."""
    rng = random.Random(1)
    numbers = [rng.random() for _ in range(200_000)]
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        sorted(numbers)
        best = min(best, time.perf_counter() - started)
    return best * 1000


def machine_note(since: list[int] | None = None) -> str:
    """The machine's CPUs and load, printed with timings: other processes skew every latency. With the
    counters taken at the start of a run, also the share of CPU time the hypervisor gave to other
    machines during it (steal), and the reference work's time now."""
    one, five, _ = os.getloadavg()
    note = f"machine: {os.cpu_count()} CPUs, load average {one:.1f} (1 min) / {five:.1f} (5 min)"
    steal = steal_share(since, cpu_counters())
    if steal is not None:
        note += f"; CPU time stolen by the hypervisor during the run {steal:.1%}; reference work {reference_ms():.0f} ms"
    return note


def steal_share(before: list[int] | None, after: list[int] | None) -> float | None:
    """The share of the machine's CPU time between two `cpu_counters()` that the hypervisor gave to other
    machines: on a shared VM, the part of a latency that is not this machine's doing."""
    if before is None or after is None or sum(after) <= sum(before):
        return None
    return (after[7] - before[7]) / (sum(after) - sum(before))


def table(title: str, headers: Sequence[str], rows: Sequence[Sequence[Any]], *, left: int = 1) -> Table:
    """A rich table: the first `left` columns left-aligned, the others right-aligned."""
    out = Table(title=title)
    for i, header in enumerate(headers):
        out.add_column(header, justify="left" if i < left else "right", no_wrap=i < left)
    for row in rows:
        out.add_row(*(str(cell) for cell in row))
    return out


def quiet_logs() -> None:
    """Keep grapevine's event log and library chatter off a benchmark's output."""
    import logging

    logging.getLogger().setLevel(logging.ERROR)
    for name in ("grapevine", "neo4j", "httpx", "graphiti_core", "openai"):
        logging.getLogger(name).setLevel(logging.ERROR)
    os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
