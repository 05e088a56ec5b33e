"""Recording throughput: messages per second the bot's recording path stores in the embedded engine.

Messages from many channels arrive the way discord.py delivers them (each event its own task) at a fixed
offered rate, then flat out. They go through the live windows exactly as the bot's listener hands them over:
batched in short ticks (`WINDOW_RECORD_TICK_MS`), windows closing and becoming pending episodes as they fill
(no LLM: extraction is not timed here). Printed: the rate written, the recorder's largest backlog, how late
the event loop woke (a write that blocked it would show here), whether every message is in the graph, and
the CPU time stolen by the hypervisor. For comparison, the same flat-out load written one message at a time.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from bench.common import TempArcadeDB, console, cpu_counters, machine_note, percentile, quiet_logs, steal_share, table
from common.settings import ExtractionSettings, WindowSettings
from graph.models import Channel, Guild, Message, User
from graph.privacy.guards.consent import Consent
from graph.reads.stats import guild_counts
from graph.store import GraphStore
from graph.writes.discord_records import upsert_channel, upsert_guild, upsert_users
from graph.writes.messages import record_messages
from ingest.ingestor import Ingestor
from ingest.live import LiveWindows
from ingest.recording import MessageRecorder

GUILD = "840000000000000001"
T0 = datetime(2025, 5, 1, 12, 0, tzinfo=UTC)
WORDS = "the a we they new old game match server patch build test tonight tomorrow anyone think works broken fixed".split()


@dataclass
class Run:
    name: str
    sent: int = 0
    seconds: float = 0.0  # from the first message handed over to the last one written
    stored: int = 0
    backlog: int = 0
    lag_ms: list[float] = field(default_factory=list)
    steal: float | None = None
    offered_seconds: float = 0.0  # from the first message handed over to the last (the offer itself)
    written_while_offered: int = 0  # written by the recorder before the last message was handed over
    backlog_at_end: int = 0  # what the recorder still held when the last message was handed over
    bench_cpu_s: float = 0.0  # this process's CPU time (time.process_time) over the run
    engine_cpu_s: float | None = None  # the engine child's CPU time (utime + stime) over the run

    def rate_while_offered(self) -> float:
        """Messages written per second during the offer: unlike sent / seconds, not capped by the offered rate."""
        return self.written_while_offered / self.offered_seconds if self.offered_seconds else 0.0

    def cpu_us_per_message(self) -> tuple[float, float | None]:
        per = 1e6 / self.sent if self.sent else 0.0
        return self.bench_cpu_s * per, None if self.engine_cpu_s is None else self.engine_cpu_s * per


def process_cpu(pid: int | None) -> float | None:
    """CPU seconds (user + system) a process has used, from /proc/<pid>/stat; None without one."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def messages(start: int, count: int, channels: int, users: Sequence[User]) -> list[tuple[Message, User]]:
    out = []
    for n in range(start, start + count):
        who = users[(n * 7) % len(users)]
        text = " ".join(WORDS[(n * k) % len(WORDS)] for k in range(1, 9))
        out.append(
            (
                Message(
                    id=f"85{n:016d}",
                    guild_id=GUILD,
                    channel_id=f"86{n % channels:016d}",
                    author_id=who.id,
                    content=text,
                    created_at=T0 + timedelta(milliseconds=n),
                ),
                who,
            )
        )
    return out


async def _loop_lag(lags: list[float], stop: asyncio.Event) -> None:
    """How late a 10 ms sleep wakes: the event loop's responsiveness while the writes go on."""
    while not stop.is_set():
        started = time.perf_counter()
        await asyncio.sleep(0.01)
        lags.append((time.perf_counter() - started - 0.01) * 1000)


async def _stored(store: GraphStore, guild: str) -> int:
    return (await guild_counts(store, guild))["messages"]


async def offered(
    store: GraphStore,
    consent: Consent,
    batch: list[tuple[Message, User]],
    rate: float,
    tick: float,
    name: str,
    *,
    engine_pid: int | None = None,
    recorder_class: type[MessageRecorder] = MessageRecorder,
) -> Run:
    guild = batch[0][0].guild_id
    # the batch is built before it is handed over (a bot never holds it): frozen, so the collector's full passes
    # over it do not land in the loop's timings
    gc.collect()
    gc.freeze()
    """Hand `batch` over at `rate` messages per second (flat out when 0), each as its own task."""
    recorder = recorder_class(store, tick_seconds=tick) if tick > 0 else None
    ingestor = Ingestor(store, None, ExtractionSettings(), WindowSettings())
    live = LiveWindows(store, ingestor, consent, WindowSettings(), recorder=recorder)
    await live.start()
    before = await _stored(store, guild)
    run, stop = Run(name, sent=len(batch)), asyncio.Event()
    lag = asyncio.create_task(_loop_lag(run.lag_ms, stop))
    counters = cpu_counters()
    cpu, engine_cpu = time.process_time(), process_cpu(engine_pid)
    started = time.perf_counter()
    tasks = []
    for i, (message, author) in enumerate(batch):
        if rate:
            due = started + i / rate
            if due > time.perf_counter():
                await asyncio.sleep(due - time.perf_counter())
        tasks.append(asyncio.create_task(live.on_message(message, author)))
        if recorder is not None:
            run.backlog = max(run.backlog, recorder.pending())
    await asyncio.gather(*tasks)
    run.offered_seconds = time.perf_counter() - started
    if recorder is not None:
        run.written_while_offered, run.backlog_at_end = recorder.recorded, recorder.pending()
        while recorder.pending():
            run.backlog = max(run.backlog, recorder.pending())
            await asyncio.sleep(0.005)
        await recorder.flush()
    else:  # one by one: each message is written before its handler returns
        run.written_while_offered = len(batch)
    run.seconds = time.perf_counter() - started
    run.bench_cpu_s = time.process_time() - cpu
    engine_after = process_cpu(engine_pid)
    run.engine_cpu_s = None if engine_cpu is None or engine_after is None else engine_after - engine_cpu
    run.steal = steal_share(counters, cpu_counters())
    stop.set()
    await lag
    await live.stop()
    await live.drain()
    run.stored = await _stored(store, guild) - before
    return run


class BeforeRecorder(MessageRecorder):
    """The recorder without batched authors, for the side-by-side: each batch upserts all its authors in a
    transaction of their own before the messages' transaction, and a closing window records its messages again."""

    async def _write(self, batch: list[tuple[Message, User]]) -> None:
        if not batch:
            return
        by_guild: dict[str, dict[str, User]] = {}
        for message, author in batch:
            by_guild.setdefault(message.guild_id, {})[author.id] = author
        for guild_id, authors in by_guild.items():
            await upsert_users(self.store, list(authors.values()), guild_id)
        refused = await record_messages(self.store, [m for m, _ in batch])
        self.recorded += len(batch) - len(refused)
        self.batches += 1

    def unsettled(self, message_ids: list[str]) -> tuple[set[str], set[str]]:
        return set(message_ids), set()


async def go(args: argparse.Namespace) -> list[Run]:
    with TempArcadeDB() as db:
        store = await db.store("recording")
        await upsert_guild(store, Guild(id=GUILD, name="busy"))
        for c in range(args.channels):
            await upsert_channel(store, Channel(id=f"86{c:016d}", guild_id=GUILD, name=f"channel-{c}"))
        users = [User(id=f"87{u:016d}", name=f"member{u}", display_name=f"Member {u}") for u in range(args.users)]
        await upsert_users(store, users, GUILD)
        consent = Consent(store)
        await consent.load()
        tick = args.tick_ms[0] / 1000
        runs = []
        n = 0
        kinds: list[tuple[str, type[MessageRecorder]]] = [("", MessageRecorder)]
        if args.before:
            kinds = [(", before", BeforeRecorder), *kinds]  # one after the other on the same graph, before first
        warm = messages(n, min(2000, args.messages), args.channels, users)
        n += len(warm)
        await offered(store, consent, warm, 0, tick, "warm-up")  # the engine's JIT, not timed
        for rate in args.rates:
            count = int(rate * args.seconds)
            for label, kind in kinds:
                batch = messages(n, count, args.channels, users)
                name = f"{rate:,.0f}/s{label}"
                runs.append(await offered(store, consent, batch, rate, tick, name, engine_pid=db.pid, recorder_class=kind))
                n += count
        for i, tick_ms in enumerate(args.tick_ms):  # the tick sizes side by side, on the same graph, one after another
            for label, kind in kinds if i == 0 else kinds[-1:]:
                batch = messages(n, args.messages, args.channels, users)
                name = f"flat out {tick_ms:g} ms{label}"
                runs.append(await offered(store, consent, batch, 0, tick_ms / 1000, name, engine_pid=db.pid, recorder_class=kind))
                n += args.messages
        one = min(args.messages, args.one_by_one)
        batch = messages(n, one, args.channels, users)
        runs.append(await offered(store, consent, batch, 0, 0, "one by one (no recorder)", engine_pid=db.pid))
        await db.close_drivers()
        return runs


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.recording", description=__doc__.splitlines()[0])
    parser.add_argument("--channels", type=int, default=100)
    parser.add_argument("--users", type=int, default=500)
    parser.add_argument("--rates", type=float, nargs="*", default=[1000.0, 2000.0], help="offered rates, messages/s")
    parser.add_argument("--seconds", type=float, default=20.0, help="how long each offered rate runs")
    parser.add_argument("--messages", type=int, default=20000, help="messages of the flat-out run")
    parser.add_argument("--one-by-one", type=int, default=3000, help="messages of the one-at-a-time comparison")
    parser.add_argument(
        "--tick-ms",
        type=float,
        nargs="+",
        default=[WindowSettings().record_tick_ms, 10.0, 250.0],
        help="tick sizes of the flat-out runs (the first also for the offered rates)",
    )
    parser.add_argument(
        "--before", action=argparse.BooleanOptionalAction, default=True, help="also run the recorder as it was, side by side"
    )
    parser.add_argument("--quick", action="store_true", help="20 channels, 500/s for 2 s, 1,000 flat out")
    parser.add_argument("--smoke", action="store_true", help="as --quick, 500/s for 1 s, 200 flat out: every row, no figure")
    args = parser.parse_args(argv)
    if args.quick:
        args.channels, args.users, args.rates, args.seconds, args.messages, args.one_by_one = 20, 50, [500.0], 2.0, 1000, 300
    if args.smoke:
        args.channels, args.users, args.rates, args.seconds, args.messages, args.one_by_one = 20, 50, [500.0], 1.0, 200, 50
    quiet_logs()
    counters = cpu_counters()
    out = console()
    runs = asyncio.run(go(args))
    rows = []
    for r in runs:
        py_us, engine_us = r.cpu_us_per_message()
        rows.append([
            r.name, f"{r.sent:,}", f"{r.stored:,}" if r.stored == r.sent else f"{r.stored:,}: {r.sent - r.stored:,} LOST",
            f"{r.sent / r.offered_seconds:,.0f}" if r.offered_seconds else "-",
            f"{r.rate_while_offered():,.0f}",
            f"{r.sent / r.seconds:,.0f}" if r.seconds else "-",
            f"{r.backlog:,}/{r.backlog_at_end:,}",
            f"{py_us:,.0f}/{engine_us:,.0f}" if engine_us is not None else f"{py_us:,.0f}/-",
            f"{percentile(r.lag_ms, 50):.1f}/{percentile(r.lag_ms, 99):.0f}/{max(r.lag_ms, default=0):.0f}",
            f"{r.steal:.1%}" if r.steal is not None else "-",
        ])  # fmt: skip
    out.print(
        table(
            f"Recording: {args.channels} channels, {args.users} members, offered rates at tick {args.tick_ms[0]:g} ms"
            " (ArcadeDB embedded, Bolt)",
            [
                "load",
                "sent",
                "stored",
                "handed/s",
                "written/s offered",
                "sent/(offer+drain)",
                "backlog max/end",
                "CPU µs/msg py/engine",
                "loop late ms p50/99/max",
                "stolen",
            ],
            rows,
        )
    )
    out.print(
        "handed over/s: messages handed over per second of the offer (below the offered rate when the event loop"
        " cannot keep up); written/s while offered: what the recorder wrote before the last hand-over, per second of"
        " the offer (sustained when the backlog at the offer's end stays small); the third rate also counts the drain"
        " and cannot exceed the offered rate. CPU: this process (time.process_time) and the engine child (utime +"
        " stime from /proc), per message sent: unlike wall-clock time, not inflated by other processes' load."
    )
    for r in runs:
        if r.name.endswith("/s"):
            bounded = "bounded" if r.backlog_at_end <= max(1, r.sent // 10) else "NOT bounded"
            out.print(
                f"sustained at {r.name} offered: {r.rate_while_offered():,.0f} messages/s written while offered, backlog"
                f" {r.backlog_at_end:,} at the offer's end ({bounded}), {'none lost' if r.stored == r.sent else 'SOME LOST'}"
            )
    out.print(machine_note(counters))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
