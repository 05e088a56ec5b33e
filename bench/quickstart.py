"""The operators' quick start as the README runs it, timed: a fresh data directory, `grapevine demo` (which
leaves the embedded engine serving in the background), then each command that looks at the sample, `export`,
`forget`, and `serve-db --stop`. Prints each command's wall time and exit code, and the load average before
and after (the figures mean something only on a machine that runs nothing else).

usage: .venv/bin/python -m bench.quickstart [--keep] [--code CHECKOUT]
  --keep: leave the temporary directory and say where
  --code: run another checkout's grapevine (an earlier commit's, to compare), with this virtualenv
  --quick, as the benchmarks' tests pass it, runs the same: the quick start is small already
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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


def environment(data: Path, code: Path) -> dict[str, str]:
    """The checkout's code, a data directory of its own, ports nobody uses, and nothing of the caller's
    grapevine settings."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPEVINE_", "NEO4J_", "ARCADEDB_", "LLM_", "ENGINE_"))}
    return {
        **clean,
        "PYTHONPATH": str(code),
        "GRAPEVINE_DATA_DIR": str(data),
        "ARCADEDB_BOLT_PORT": str(free_port()),
        "ARCADEDB_HTTP_PORT": str(free_port()),
        "COLUMNS": "120",
    }


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def run(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, int, str]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "grapevine", *command], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )
    last = (done.stdout + done.stderr).strip().splitlines()
    return time.perf_counter() - started, done.returncode, last[-1][:100] if last else ""


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="bench.quickstart", usage=__doc__)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--code", type=Path, default=REPO)
    args = parser.parse_args(argv)
    keep, code = args.keep, args.code.resolve()
    folder = Path(tempfile.mkdtemp(prefix="grapevine-quickstart-"))
    shutil.copy(code / ".env.example", folder / ".env")
    env = environment(folder / "data", code)
    print(f"code: {code}; load average before: {load()}  ({os.cpu_count()} cores)")
    failed = 0
    try:
        for command in COMMANDS:
            seconds, code, last = run(command, folder, env)
            failed += code != 0
            print(f"{seconds:7.2f} s  exit {code}  grapevine {' '.join(command)}", flush=True)
            if code != 0:
                print(f"          {last}")
    finally:
        subprocess.run([sys.executable, "-m", "grapevine", "serve-db", "--stop"], cwd=folder, env=env, capture_output=True)
        if keep:
            print(f"kept: {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    print(f"load average after: {load()}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
