"""Two commands on one data directory. A command joined an engine another command
had started and lost it when that one ended (AuthError mid-run); two imports on a fresh directory raced
on schema creation (HTTP 500); a command pointed at another directory with the default ports silently
read and wrote the running engine's database. Now one command owns a directory; others join only a
shared engine (`serve-db`, the bot, the explorer) that proves it serves their directory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path

import pytest

from grapevine.ownership import DataDirLock, OwnerRecord
from grapevine.runtime import BACKGROUND
from tests.faults.test_cli_faults import grapevine
from tests.support.dce_builder import export_from_irc
from tests.support.ports import free_port

SAMPLE = Path(__file__).resolve().parents[3] / "shared" / "data" / "irc" / "dev"


def _env(data: Path, bolt: int, http: int) -> dict[str, str]:
    return {"GRAPEVINE_DATA_DIR": str(data), "ARCADEDB_BOLT_PORT": str(bolt), "ARCADEDB_HTTP_PORT": str(http),
            "ARCADEDB_PASSWORD": "same-password-everywhere"}  # fmt: skip


def _one_line(done: subprocess.CompletedProcess[str], says: str) -> None:
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr + done.stdout
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and says in " ".join(done.stderr.split()), done.stderr


@pytest.fixture
def served(tmp_path: Path) -> Iterator[dict[str, str]]:
    """`grapevine serve-db` on a data directory, running until the test ends."""
    env = _env(tmp_path / "a", free_port(), free_port())
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPEVINE_", "ARCADEDB_", "LLM_"))}
    proc = subprocess.Popen([sys.executable, "-m", "grapevine", "serve-db"], env={**clean, **env}, cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)  # fmt: skip
    assert proc.stdout is not None
    for line in proc.stdout:
        if "ArcadeDB serving" in line:
            break
    else:
        raise AssertionError("serve-db did not start")
    try:
        yield env
    finally:
        proc.terminate()
        proc.wait(60)


def test_a_second_command_on_a_held_directory_says_who_holds_it(tmp_path: Path) -> None:
    env = _env(tmp_path / "data", free_port(), free_port())
    held = DataDirLock(tmp_path / "data")
    assert held.acquire("grapevine import", shared=False)
    try:
        _one_line(grapevine(tmp_path, "stats", **env), f"is in use by `grapevine import` (pid {os.getpid()})")
        assert not (tmp_path / "data" / "arcadedb").exists(), "no engine was started"
    finally:
        held.release()
    assert grapevine(tmp_path, "stats", **env).returncode == 0


def _gone_pid() -> int:
    ended = subprocess.Popen([sys.executable, "-c", ""])
    ended.wait()
    return ended.pid


@pytest.mark.parametrize("record", ["of a gone owner", "removed"])
def test_a_command_waits_for_the_lock_of_an_owner_that_is_ending(tmp_path: Path, record: str) -> None:
    """A killed owner's lock outlives its pid for a moment (the kernel lets go of it once the last of its threads
    has exited), and an owner that ends removes its record before it lets go of the lock. A command arriving then
    was told the directory is busy (or ran out of hand-overs reading the gone owner again): it waits for the lock."""
    data = tmp_path / "data"
    env = _env(data, free_port(), free_port())
    held = DataDirLock(data)
    assert held.acquire(BACKGROUND, shared=True)
    (data / "engine.json").unlink()
    if record != "removed":
        gone = OwnerRecord(pid=_gone_pid(), command=BACKGROUND, shared=True, token="t", engine_pid=_gone_pid(), ready=True)
        (data / "engine.json").write_text(json.dumps(asdict(gone)))
    letting_go = threading.Timer(2.0, held.release)
    letting_go.start()
    try:
        done = grapevine(tmp_path, "stats", **env)
    finally:
        letting_go.cancel()
        held.release()
    assert done.returncode == 0 and "GraphMeta" in done.stdout, done.stdout + done.stderr


def test_commands_join_a_shared_engine_and_a_second_server_is_refused(served: dict[str, str], tmp_path: Path) -> None:
    first = grapevine(tmp_path, "stats", **served)
    assert first.returncode == 0 and "GraphMeta" in first.stdout, first.stderr
    _one_line(grapevine(tmp_path, "serve-db", **served), "is in use by `grapevine serve-db`")
    assert grapevine(tmp_path, "query", "guild_overview", "-p", "guild_id=100000000000000001", **served).returncode == 0


def test_another_directory_never_uses_an_engine_listening_on_its_ports(served: dict[str, str], tmp_path: Path) -> None:
    other = {**served, "GRAPEVINE_DATA_DIR": str(tmp_path / "b")}
    _one_line(grapevine(tmp_path, "stats", **other), f"an engine that does not serve {tmp_path / 'b'} listens on port")
    assert not (tmp_path / "b" / "arcadedb").exists()
    fake = DataDirLock(tmp_path / "c")  # a directory whose owner record claims the engine: the token says no
    assert fake.acquire("grapevine serve-db", shared=True)
    copy = (tmp_path / "c" / "engine.json").read_text(encoding="utf-8")
    fake.release()
    (tmp_path / "c" / "engine.json").write_text(copy, encoding="utf-8")
    holder = subprocess.Popen([sys.executable, "-c", "import fcntl,sys,time; f=open(sys.argv[1],'a'); "
                               "fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True); time.sleep(120)",
                               str(tmp_path / "c" / "engine.lock")], stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        faked = {**served, "GRAPEVINE_DATA_DIR": str(tmp_path / "c")}
        _one_line(grapevine(tmp_path, "stats", **faked), "an engine that does not serve")
    finally:
        holder.kill()


def test_two_imports_on_a_fresh_directory_do_not_race(tmp_path: Path) -> None:
    export = tmp_path / "ubuntu.json"
    export_from_irc(next(SAMPLE.glob("*.raw.txt")), export, channel_id="710000000000004242")
    env = _env(tmp_path / "data", free_port(), free_port())
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPEVINE_", "ARCADEDB_", "LLM_"))}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "grapevine", "import", str(export)],
            env={**clean, **env, "COLUMNS": "80"},
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        for _ in range(2)
    ]
    outcomes = sorted((p.wait(600), *p.communicate()) for p in procs)
    (ok, ok_out, _), (busy, _, busy_err) = outcomes
    assert ok == 0 and "messages" in ok_out
    assert busy == 1 and "is in use by `grapevine import`" in busy_err and "Traceback" not in busy_err
