"""Issue 16, finding 12: killing grapevine while its engine starts left the child crashing on
print("READY") (BrokenPipeError) while its JVM kept serving on the port, ignoring SIGTERM. The child
now stops when its owner is gone, whenever that happens."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from graph.engines.arcadedb import ArcadeDBEngine, ArcadeDBServer, EngineStartError
from tests.support.ports import free_port

REPO = Path(__file__).resolve().parents[2]


def child(root: Path, bolt: int, http: int) -> subprocess.Popen[str]:
    cfg = {"root": str(root), "password": "fault-tests", "database": "faults", "host": "127.0.0.1", "bolt_port": bolt,
           "http_port": http, "heap": "512m"}  # fmt: skip
    return subprocess.Popen(
        [sys.executable, "-m", "graph.engines.arcadedb_child", json.dumps(cfg)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=REPO,
    )  # fmt: skip


@pytest.mark.slow
def test_an_engine_whose_owner_died_during_start_stops(tmp_path: Path) -> None:
    proc = child(tmp_path / "engine", free_port(), free_port())
    assert proc.stdin and proc.stdout
    proc.stdout.close()  # the owner is gone: nobody reads READY, nobody holds stdin
    proc.stdin.close()
    try:
        proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("the engine child kept running after its owner was gone")


@pytest.mark.slow
def test_a_child_that_exits_during_start_is_reported_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = ArcadeDBEngine(password="fault-tests", database="faults", bolt_port=free_port(), http_port=free_port())
    monkeypatch.setenv("ARCADEDB_JVM_ARGS", "-Xmxnonsense")  # the JVM refuses to start: the child exits
    server = ArcadeDBServer(tmp_path / "engine", engine, heap="512m", start_timeout=90)
    started = time.monotonic()
    with pytest.raises(EngineStartError, match="exited during start") as info:
        server.start()
    assert time.monotonic() - started < 60 and "server.out" in str(info.value)
