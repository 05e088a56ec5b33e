"""Killing grapevine while its engine starts left the child crashing on
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
    proc = subprocess.Popen(
        [sys.executable, "-m", "graph.engines.arcadedb_child"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=REPO,
    )  # fmt: skip
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(cfg) + "\n")  # its configuration comes by standard input, as the owner sends it
    proc.stdin.flush()
    return proc


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
@pytest.mark.serial  # a bound on how long the start takes to fail
def test_a_child_that_exits_during_start_is_reported_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = ArcadeDBEngine(password="fault-tests", database="faults", bolt_port=free_port(), http_port=free_port())
    monkeypatch.setenv("ARCADEDB_JVM_ARGS", "-Xmxnonsense")  # the JVM refuses to start: the child exits
    server = ArcadeDBServer(tmp_path / "engine", engine, heap="512m", start_timeout=90)
    started = time.monotonic()
    with pytest.raises(EngineStartError, match="exited during start") as info:
        server.start()
    assert time.monotonic() - started < 60 and "server.out" in str(info.value)


def _engine_child_of(owner: int, timeout: float = 60) -> int:
    """The pid of the engine child `owner` spawned, as soon as it exists."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for proc in Path("/proc").iterdir():
            try:
                stat = (proc / "stat").read_text().rsplit(")", 1)[1].split()
                if proc.name.isdigit() and int(stat[1]) == owner and b"arcadedb_child" in (proc / "cmdline").read_bytes():
                    return int(proc.name)
            except (OSError, IndexError, ValueError):
                continue
        time.sleep(0.01)
    raise AssertionError("the command never spawned its engine")


@pytest.mark.slow
def test_a_command_killed_while_its_engine_starts_is_followed_cleanly(tmp_path: Path) -> None:
    """Found by the kill -9 trials under load: grapevine killed after spawning its engine but before READY
    left no engine pid in engine.json, so the next command did not wait for that engine to stop and refused
    the directory ("an engine that does not serve ... listens on port"), or started a second engine on it."""
    from tests.faults.test_cli_faults import grapevine

    env = {"GRAPEVINE_DATA_DIR": str(tmp_path / "data"), "ARCADEDB_BOLT_PORT": str(free_port()),
           "ARCADEDB_HTTP_PORT": str(free_port())}  # fmt: skip
    clean = {k: v for k, v in __import__("os").environ.items() if not k.startswith(("GRAPEVINE_", "ARCADEDB_", "LLM_"))}
    first = subprocess.Popen([sys.executable, "-m", "grapevine", "stats"], env={**clean, **env}, cwd=tmp_path,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    engine = _engine_child_of(first.pid)
    first.kill()
    first.wait()
    recorded = json.loads((tmp_path / "data" / "engine.json").read_text())
    assert recorded.get("engine_pid") == engine, "the engine child is recorded as soon as it is spawned"
    again = grapevine(tmp_path, "stats", **env)
    assert again.returncode == 0, again.stderr
    assert not Path(f"/proc/{engine}").exists() or "Z" in Path(f"/proc/{engine}/stat").read_text().rsplit(")", 1)[1][:3]


@pytest.mark.slow
def test_a_second_engine_child_never_serves_the_same_files(tmp_path: Path) -> None:
    """The engine root's lock is the engines' own guard: whatever the owners believe, a second child on the
    same root waits for the first and gives up (exit 3, said on stderr) rather than opening its files too."""
    root = tmp_path / "engine"
    first = child(root, free_port(), free_port())
    assert first.stdout is not None
    try:
        assert first.stdout.readline().strip() == "READY"
        cfg = {"root": str(root), "password": "fault-tests", "database": "faults", "host": "127.0.0.1",
               "bolt_port": free_port(), "http_port": free_port(), "heap": "512m", "lock_timeout": 2}  # fmt: skip
        second = subprocess.run([sys.executable, "-m", "graph.engines.arcadedb_child"], input=json.dumps(cfg) + "\n",
                                capture_output=True, text=True, cwd=REPO, timeout=120)  # fmt: skip
        assert second.returncode == 0 and "READY" not in second.stdout  # its owner was gone: it never started
        held = subprocess.Popen([sys.executable, "-m", "graph.engines.arcadedb_child"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                cwd=REPO)  # fmt: skip
        assert held.stdin is not None
        held.stdin.write(json.dumps(cfg) + "\n")
        held.stdin.flush()
        assert held.wait(120) == 3  # its owner is there, the lock is not: it says so and exits
        assert held.stdout and held.stderr and held.stdout.read() == ""
        assert "another engine still serves" in held.stderr.read()
    finally:
        assert first.stdin is not None
        first.stdin.close()
        first.wait(120)
