"""The operators' quick start as the README runs it, timed: a fresh data directory, `grapevine demo` (which
leaves the embedded engine serving in the background), then each command that looks at the sample, `export`,
`forget`, and `serve-db --stop`. Prints each command's wall time, exit code and CPU time (the command's process,
and the background engine's while the command ran: a loaded machine inflates wall time far more than CPU time),
and the load average before and after (the wall times mean something only on a machine that runs nothing else).

usage: .venv/bin/python -m bench.quickstart [--keep] [--code CHECKOUT] [--base CHECKOUT] [--rounds N]
  --keep: leave the temporary directories and say where
  --code: run another checkout's grapevine (an earlier commit's, to compare), with that checkout's .venv when it
          has one (else this one's)
  --base: compare: run the quick start in CHECKOUT and in --code (this one by default) side by side, command by
          command in turn (each its own data directory and engine), after one round that is not counted (it
          fills each checkout's caches, the engine's AOT cache too, waited for); prints each command's median of
          --rounds (default 3) for both
  --quick, as the benchmarks' tests pass it, runs the same: the quick start is small already
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.cpu import process_cpu_s
from tests.support.ports import free_port

REPO = Path(__file__).resolve().parents[1]
GUILD, CHANNEL, BOB = "833055463833731073", "833055715491971076", "602779366195331079"
# the README's order, less `doctor` (it reaches the LLM endpoint and Discord) and `explore` (a server)
COMMANDS: list[list[str]] = [
    ["demo"],
    ["stats"],
    ["facts", "--guild", GUILD, "--user", BOB, "--history"],
    ["who-knows", "Berlin", "--guild", GUILD],
    ["timeline", "--guild", GUILD, "--user", BOB],
    ["context", "--guild", GUILD, "--channel", CHANNEL, "--user", BOB, "--message", "where do I live now?"],
    ["export", BOB],
    ["forget", BOB, "--yes"],
    ["serve-db", "--stop"],
]


def environment(data: Path, code: Path, cache: Path | None = None) -> dict[str, str]:
    """The checkout's code, a data directory of its own, ports nobody uses, and nothing of the caller's
    grapevine settings; with `cache`, a cache folder of its own (XDG_CACHE_HOME)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPEVINE_", "NEO4J_", "ARCADEDB_", "LLM_", "ENGINE_"))}
    return {
        **clean,
        "PYTHONPATH": str(code),
        "GRAPEVINE_DATA_DIR": str(data),
        "ARCADEDB_BOLT_PORT": str(free_port()),
        "ARCADEDB_HTTP_PORT": str(free_port()),
        "COLUMNS": "120",
        **({"XDG_CACHE_HOME": str(cache)} if cache is not None else {}),
    }


def python_of(code: Path) -> str:
    """The checkout's own interpreter (its dependencies may differ from this one's), else this one."""
    own = code / ".venv" / "bin" / "python"
    return str(own) if own.is_file() else sys.executable


def cache_of(code: Path) -> Path:
    """A cache folder kept for one checkout between runs, so that two checkouts compared never replace each
    other's cached lists (each keys them by its own rules); the engine's ahead-of-time cache is copied in once
    from the user's (it is rebuilt when the engine's jars differ)."""
    user = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    folder = user / "grapevine-bench" / hashlib.sha256(str(code).encode()).hexdigest()[:12]
    aot, own_aot = user / "grapevine" / "arcadedb-aot", folder / "grapevine" / "arcadedb-aot"
    if aot.is_dir() and not own_aot.exists():
        shutil.copytree(aot, own_aot)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def aot_settled(folder: Path, patience: float = 300.0) -> None:
    """Wait while the engine's AOT cache recorded by the uncounted round is still being created (a detached `java`
    writes it after the engine stopped: graph/engines/arcadedb_aot.py), so that no counted round runs beside that
    process or records a cache again."""
    deadline = time.monotonic() + patience
    while time.monotonic() < deadline:
        caches = {c.name for c in folder.glob("engine-*.aot")}
        recorded = [c for c in folder.glob("engine-*.aotconf") if c.name.split(".")[0] + ".aot" not in caches]
        if list(folder.glob("engine-*.part")):
            time.sleep(1)  # being created
        elif recorded and any(time.time() - c.stat().st_mtime < 30 for c in recorded):
            time.sleep(1)  # recorded just now: its creation is starting
        else:
            return  # none recorded, or created, or its creation failed (the next start records again)


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


@dataclass(frozen=True)
class Timed:
    wall: float
    cpu: float  # the command's process (and its children that it waited for)
    engine_cpu: float | None  # the background engine's (its owner process and the JVM) while the command ran
    code: int
    last: str


@dataclass
class Checkout:
    """One checkout's quick start: its interpreter, a fresh folder with its own `.env` and data directory."""

    code: Path
    python: str
    folder: Path
    env: dict[str, str] = field(repr=False)

    @classmethod
    def fresh(cls, code: Path, cache: Path | None = None) -> Checkout:
        folder = Path(tempfile.mkdtemp(prefix="grapevine-quickstart-"))
        shutil.copy(code / ".env.example", folder / ".env")
        return cls(code, python_of(code), folder, environment(folder / "data", code, cache))

    def engine_cpu(self) -> float | None:
        """CPU seconds of the engine serving in the background so far (None when none serves)."""
        try:
            record = json.loads((self.folder / "data" / "engine.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        found = [process_cpu_s(record.get("pid")), process_cpu_s(record.get("engine_pid"))]
        return sum(s for s in found if s is not None) if any(s is not None for s in found) else None

    def run(self, command: list[str]) -> Timed:
        engine_before = self.engine_cpu()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(
            [self.python, "-m", "grapevine", *command],
            cwd=self.folder,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        engine_after = self.engine_cpu()
        engine = engine_after - engine_before if engine_before is not None and engine_after is not None else None
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        last = (done.stdout + done.stderr).strip().splitlines()
        return Timed(wall, cpu, engine, done.returncode, last[-1][:100] if last else "")

    def close(self, keep: bool) -> None:
        subprocess.run([self.python, "-m", "grapevine", "serve-db", "--stop"], cwd=self.folder, env=self.env, capture_output=True)
        if keep:
            print(f"kept: {self.folder}")
        else:
            shutil.rmtree(self.folder, ignore_errors=True)


def line(timed: Timed, command: list[str]) -> str:
    engine = f", engine {timed.engine_cpu:.2f} s" if timed.engine_cpu is not None and command[0] != "serve-db" else ""
    return f"{timed.wall:7.2f} s  exit {timed.code}  grapevine {' '.join(command)}  (cpu {timed.cpu:.2f} s{engine})"


def alone(code: Path, keep: bool) -> int:
    checkout = Checkout.fresh(code)
    print(f"code: {code}; load average before: {load()}  ({os.cpu_count()} cores)")
    failed = 0
    try:
        for command in COMMANDS:
            timed = checkout.run(command)
            failed += timed.code != 0
            print(line(timed, command), flush=True)
            if timed.code != 0:
                print(f"          {timed.last}")
    finally:
        checkout.close(keep)
    print(f"load average after: {load()}")
    return 1 if failed else 0


def median(found: list[Timed], what: str) -> float:
    values = [getattr(t, what) for t in found if getattr(t, what) is not None]
    return statistics.median(values) if values else float("nan")


def side_by_side(base: Path, code: Path, rounds: int, keep: bool) -> int:
    """Both checkouts' quick starts in turn, command by command, so that both meet the same load."""
    caches = {base: cache_of(base), code: cache_of(code)}
    print(f"base: {base}\ncode: {code}\nload average before: {load()}  ({os.cpu_count()} cores)")
    times: dict[tuple[Path, str], list[Timed]] = {}
    failed = 0
    for number in range(rounds + 1):  # round 0 fills each checkout's caches: not counted
        print(f"round {number}{' (not counted: it fills the caches)' if number == 0 else ''}", flush=True)
        checkouts = [Checkout.fresh(base, caches[base]), Checkout.fresh(code, caches[code])]
        try:
            for command in COMMANDS:
                for checkout in checkouts if number % 2 == 0 else reversed(checkouts):  # neither always first
                    timed = checkout.run(command)
                    label = "base" if checkout.code == base else "code"
                    print(f"  {label} {line(timed, command)}", flush=True)
                    if timed.code != 0:
                        failed += 1
                        print(f"          {timed.last}")
                    elif number > 0:
                        times.setdefault((checkout.code, command[0]), []).append(timed)
        finally:
            for checkout in checkouts:
                checkout.close(keep)
        if number == 0:
            for folder in caches.values():
                aot_settled(folder / "grapevine" / "arcadedb-aot")
    print(f"load average after: {load()}")
    print(f"medians of {rounds} rounds (seconds)          wall base → code       cpu base → code   engine cpu base → code")
    for command in COMMANDS:
        name = command[0]
        a, b = times.get((base, name), []), times.get((code, name), [])
        if not a or not b:
            continue

        print(
            f"  {name:38} {median(a, 'wall'):6.2f} → {median(b, 'wall'):6.2f}    {median(a, 'cpu'):6.2f} → {median(b, 'cpu'):6.2f}"
            f"    {median(a, 'engine_cpu'):6.2f} → {median(b, 'engine_cpu'):6.2f}"
        )
    return 1 if failed else 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="bench.quickstart", usage=__doc__)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--code", type=Path, default=REPO)
    parser.add_argument("--base", type=Path, default=None)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    if args.base is None:
        return alone(args.code.resolve(), args.keep)
    return side_by_side(args.base.resolve(), args.code.resolve(), max(1, args.rounds), args.keep)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
