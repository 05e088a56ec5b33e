"""The embedded ArcadeDB server, run as a child process (`python -m graph.engines.arcadedb_child`).

ArcadeDB runs its JVM inside the calling process through JPype, so grapevine keeps it in a
process of its own. Configuration comes as the first line of standard input, one JSON object (a
password in the arguments would be listed to every local user by `ps`). The child prints `READY` once Bolt
answers, then serves until its stdin closes or reads `stop`; it stops the server cleanly (a
SIGTERM into JPype's handler can crash the JVM, so SIGTERM/SIGINT are turned into a clean stop).
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import sys
import threading
import time
from typing import IO, Any

from common.files import private_umask
from graph.engines.arcadedb_aot import AotCache

REGEX_TIMEOUT_MS = 60_000
ENGINE_LOCK = "engine.lock"  # in the engine's root, held by the one child serving it until it exits


def jvm_args(heap: str) -> list[str]:
    """The JVM's options (unless ARCADEDB_JVM_ARGS sets its own).
    - Explicit System.gc() calls are ignored: under a reply load, calls from the embedding layer (no
      ArcadeDB class on the read path makes one) caused a full collection of 15-50 ms every few
      seconds, landing inside reads.
    - The parallel collector rather than G1 (the default on 2 cores and more): the engine's live heap
      is small (under 100 MB at 100,000 facts) and its reads allocate a lot (about 500 MB/s under a
      reply load), so G1's barriers and concurrent threads cost more than they save. At 100,000
      facts, the engine used about a sixth less CPU per reply context, and young pauses stayed at
      1-3 ms.
    - Regular expressions may run 60 s in all per statement, not 1 s: the deadline is wall-clock time
      shared by every regex of a statement, so on a loaded machine the reply's whole-word search over a
      channel's recent messages was aborted (TransactionTimedOut). Its patterns are escaped word lists,
      which cannot backtrack without bound (tests/faults/test_regex_bound.py)."""
    return [
        f"-Xmx{heap}",
        "-XX:+DisableExplicitGC",
        "-XX:+UseParallelGC",
        "-Darcadedb.txWalFlush=1",
        f"-Darcadedb.command.regexTimeout={REGEX_TIMEOUT_MS}",
    ]


READER_GROUP = "grapevine_reader"


def reader_group(path: str) -> None:
    """Add to the server's groups one that may only read records: the group of the user operator queries
    run as (graph.engines.arcadedb.READER). The server reads this file when it starts."""
    groups: dict[str, Any] = {"databases": {"*": {"groups": {}}}, "version": 2}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            groups = json.load(f)
    everywhere = groups.setdefault("databases", {}).setdefault("*", {}).setdefault("groups", {})
    wanted = {"access": [], "resultSetLimit": -1, "readTimeout": -1, "types": {"*": {"access": ["readRecord"]}}}
    if everywhere.get(READER_GROUP) == wanted:
        return
    everywhere[READER_GROUP] = wanted
    everywhere.setdefault("admin", {"access": ["updateSecurity", "updateSchema", "updateDatabaseSettings"],
                                    "resultSetLimit": -1, "readTimeout": -1,
                                    "types": {"*": {"access": ["createRecord", "readRecord", "updateRecord", "deleteRecord"]}}})  # fmt: skip
    everywhere.setdefault("*", {"access": [], "resultSetLimit": -1, "readTimeout": -1, "types": {"*": {"access": []}}})
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(groups, f, indent=2)
    os.replace(path + ".tmp", path)


def main() -> int:
    private_umask()  # what the engine writes (records, WAL, logs, users) is its user's alone
    line = sys.stdin.readline()  # the configuration, password included, comes by the pipe, never as an argument
    if not line.strip():
        print("no configuration on standard input (the engine is started by graph.engines.arcadedb)", file=sys.stderr)
        return 2
    cfg = json.loads(line)
    root = cfg["root"]
    os.makedirs(root, mode=0o700, exist_ok=True)
    os.chdir(root)  # ArcadeDB writes ./log relative to the working directory
    aot: AotCache | None = None
    if cfg.get("heap") and "ARCADEDB_JVM_ARGS" not in os.environ:
        options = jvm_args(cfg["heap"])
        if cfg.get("aot"):
            aot = AotCache(cfg.get("aot_dir") or os.path.join(root, "aot"), options, record=cfg.get("aot_record", True))
            options += aot.options()
        os.environ["ARCADEDB_JVM_ARGS"] = " ".join(options)
    stop = threading.Event()

    def _watch_stdin() -> None:
        # The owner holds our stdin: EOF means it exited (even by kill -9), so the engine stops too.
        for line in sys.stdin:
            if line.strip() == "stop":
                break
        stop.set()

    threading.Thread(target=_watch_stdin, daemon=True).start()
    held = _serve_alone(root, stop, float(cfg.get("lock_timeout", 120)))
    if held is None:
        return 0 if stop.is_set() else 3
    reader_group(os.path.join(root, "config", "server-groups.json"))
    import arcadedb_embedded as arcadedb

    server = arcadedb.create_server(
        root,
        root_password=cfg["password"],
        config={
            "server_plugins": "Bolt:com.arcadedb.bolt.BoltProtocolPlugin",
            "bolt_port": cfg["bolt_port"],
            "bolt_defaultDatabase": cfg["database"],
            "host": cfg["host"],
            "http_port": cfg["http_port"],
        },
    )
    server.start()
    if not os.path.isdir(os.path.join(root, "databases", cfg["database"])):
        server.create_database(cfg["database"])

    def _on_signal(signum: int, frame: object) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    _say("READY", stop)
    stop.wait()
    server.stop()
    if aot is not None and aot.training:
        aot.finish(sys.stderr)  # the JVM writes what it recorded as it shuts down, before STOPPED
    _say("STOPPED", stop)
    return 0


def _serve_alone(root: str, stop: threading.Event, timeout: float) -> IO[str] | None:
    """Take the engine root's lock before the JVM opens any file: an engine left by an owner killed while it
    started (before it could record the engine's pid) is waited for, never joined by a second JVM on the same
    files. None when this child must not serve: its owner is gone already, or the lock stayed held."""
    handle = open(os.path.join(root, ENGINE_LOCK), "a+", encoding="utf-8")
    deadline = time.monotonic() + timeout
    while True:
        if stop.is_set():
            handle.close()
            return None
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if time.monotonic() > deadline:
                print(f"another engine still serves {root} after {timeout:.0f}s", file=sys.stderr, flush=True)
                handle.close()
                return None
            time.sleep(0.1)
            continue
        return handle


def engine_running(root: str) -> bool:
    """Whether a child serves (or is starting on) this engine root now."""
    path = os.path.join(root, ENGINE_LOCK)
    if not os.path.exists(path):
        return False
    with open(path, "a+", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(handle, fcntl.LOCK_UN)
        return False


def _say(word: str, stop: threading.Event) -> None:
    """Tell the owner; an owner that is gone (a closed pipe) means stop, never a crash that leaves the
    JVM's threads serving on their own."""
    try:
        print(word, flush=True)
    except (BrokenPipeError, OSError):
        stop.set()


if __name__ == "__main__":
    code = main()
    sys.stdout = sys.stderr = open(os.devnull, "w")
    os._exit(code)  # the JVM's non-daemon threads must not keep a stopped engine's process alive
