"""The first command that needs the embedded engine leaves it serving in the background (private to the user,
on loopback, holding the data directory), the next commands join it instead of starting their own (20-40 s
each), `doctor` says it serves, `grapevine serve-db --stop` stops it, and it stops by itself once idle. Every
other test runs commands one-shot (ENGINE_IDLE_MINUTES=0 in tests/conftest.py): nothing is left behind."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from grapevine.ownership import DataDirLock, OwnerRecord, process_alive
from grapevine.runtime import BACKGROUND
from graph.schema import schema_version_key
from tests.support.background_owner import stop_background_owner
from tests.support.ports import free_port

pytestmark = pytest.mark.slow


def _run(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "grapevine", *args], env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=300)  # fmt: skip


@pytest.fixture
def warm(tmp_path: Path) -> Iterator[dict[str, str]]:
    """A deployment whose commands leave the engine serving; whatever still serves at the end is stopped."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPEVINE_", "ARCADEDB_", "LLM_", "ENGINE_"))}
    env = clean | {
        "GRAPEVINE_DATA_DIR": str(tmp_path / "data"),
        "ARCADEDB_BOLT_PORT": str(free_port()),
        "ARCADEDB_HTTP_PORT": str(free_port()),
        "ENGINE_IDLE_MINUTES": "15",
    }
    try:
        yield env
    finally:
        stop_background_owner(tmp_path / "data")


def _serving(data: Path) -> OwnerRecord:
    owner = DataDirLock(data).owner()
    assert owner is not None and owner.command == BACKGROUND and owner.shared and owner.ready, owner
    assert process_alive(owner.pid) and owner.engine_pid is not None and process_alive(owner.engine_pid)
    return owner


def test_later_commands_join_the_engine_the_first_left_serving_and_serve_db_stop_stops_it(
    warm: dict[str, str], tmp_path: Path
) -> None:
    data = Path(warm["GRAPEVINE_DATA_DIR"])
    first = _run(warm, tmp_path, "stats")
    assert first.returncode == 0 and "GraphMeta" in first.stdout, first.stdout + first.stderr
    owner = _serving(data)
    assert owner.schema == schema_version_key()  # what it set up: the commands joining it only check the record
    password = data / "arcadedb.password"
    assert stat.S_IMODE(password.stat().st_mode) == 0o600
    assert password.read_text() not in Path(f"/proc/{owner.pid}/cmdline").read_text()  # never on a command line

    for args in (("stats",), ("query", "guild_overview", "-p", "guild_id=100000000000000001")):
        joined = _run(warm, tmp_path, *args)
        assert joined.returncode == 0, joined.stdout + joined.stderr
        assert _serving(data) == owner  # the same engine, not one started again
    doctor = _run(warm, tmp_path, "doctor")  # its LLM and Discord checks fail here; the engine's line is the point
    assert f"engine: serving in the background (pid {owner.pid})" in " ".join(doctor.stdout.split()), doctor.stdout
    assert (data / "logs" / "engine.log").read_text().count("ArcadeDB serving") == 1

    stopped = _run(warm, tmp_path, "serve-db", "--stop")
    assert stopped.returncode == 0 and f"(pid {owner.pid})" in stopped.stdout, stopped.stdout + stopped.stderr
    assert not process_alive(owner.pid) and DataDirLock(data).owner() is None
    assert owner.engine_pid is not None
    for _ in range(150):  # the engine child stops with its owner
        if not process_alive(owner.engine_pid):
            break
        time.sleep(0.2)
    assert not process_alive(owner.engine_pid)
    again = _run(warm, tmp_path, "serve-db", "--stop")
    assert again.returncode == 0 and "no engine serves" in again.stdout


def test_the_engine_left_serving_stops_by_itself_once_idle(warm: dict[str, str], tmp_path: Path) -> None:
    quick = warm | {"ENGINE_IDLE_MINUTES": "0.05"}  # three seconds
    data = Path(warm["GRAPEVINE_DATA_DIR"])
    done = _run(quick, tmp_path, "stats")
    assert done.returncode == 0, done.stderr
    owner = DataDirLock(data).owner()
    assert owner is not None
    deadline = time.monotonic() + 120
    while process_alive(owner.pid) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not process_alive(owner.pid) and DataDirLock(data).owner() is None
    assert "no command used the engine for 0.05 minutes" in (data / "logs" / "engine.log").read_text()
    after = _run(quick, tmp_path, "stats")  # and the next command starts it again
    assert after.returncode == 0, after.stderr


def test_a_killed_engine_lets_go_of_the_data_directory(warm: dict[str, str], tmp_path: Path) -> None:
    """kill -9 of the engine child: the background serve-db sees it, exits and releases the directory, and the next
    command starts the engine again instead of being told to wait for an owner that serves nothing."""
    data = Path(warm["GRAPEVINE_DATA_DIR"])
    first = _run(warm, tmp_path, "stats")
    assert first.returncode == 0, first.stdout + first.stderr
    owner = _serving(data)
    assert owner.engine_pid is not None
    os.kill(owner.engine_pid, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while process_alive(owner.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not process_alive(owner.pid) and DataDirLock(data).owner() is None
    assert "the engine exited" in (data / "logs" / "engine.log").read_text()
    after = _run(warm, tmp_path, "stats")
    assert after.returncode == 0 and "GraphMeta" in after.stdout, after.stdout + after.stderr
    assert _serving(data).pid != owner.pid


@pytest.mark.serial
def test_a_command_frees_a_directory_whose_background_owner_serves_nothing(warm: dict[str, str], tmp_path: Path) -> None:
    """The background serve-db cannot notice (stopped with SIGSTOP) that its engine was killed: a command finding the
    lock held, nothing answering, stops that owner and starts the engine itself."""
    data = Path(warm["GRAPEVINE_DATA_DIR"])
    first = _run(warm, tmp_path, "stats")
    assert first.returncode == 0, first.stdout + first.stderr
    owner = _serving(data)
    assert owner.engine_pid is not None
    os.kill(owner.pid, signal.SIGSTOP)
    os.kill(owner.engine_pid, signal.SIGKILL)
    after = _run(warm, tmp_path, "stats")
    assert after.returncode == 0 and "GraphMeta" in after.stdout, after.stdout + after.stderr
    assert not process_alive(owner.pid) and _serving(data).pid != owner.pid


SECRETS = {"DISCORD_TOKEN": "discord-token-secret", "LLM_API_KEY": "llm-key-secret", "NEO4J_PASSWORD": "neo4j-password-secret"}


def _environ(pid: int) -> str:
    return Path(f"/proc/{pid}/environ").read_bytes().decode(errors="replace")


def _without_secrets(owner: OwnerRecord) -> None:
    assert owner.engine_pid is not None
    for pid in (owner.pid, owner.engine_pid):
        held = _environ(pid)
        assert "GRAPEVINE_DATA_DIR=" in held  # its environment, read
        assert not [name for name, value in SECRETS.items() if name in held or value in held], (pid, held)


def test_the_background_engine_keeps_no_secret_it_does_not_need(warm: dict[str, str], tmp_path: Path) -> None:
    data = Path(warm["GRAPEVINE_DATA_DIR"])
    first = _run(warm | SECRETS, tmp_path, "stats")
    assert first.returncode == 0, first.stdout + first.stderr
    _without_secrets(_serving(data))


def test_serve_db_started_by_hand_drops_the_secrets_it_was_given(warm: dict[str, str], tmp_path: Path) -> None:
    data = Path(warm["GRAPEVINE_DATA_DIR"])
    env = warm | SECRETS | {"ENGINE_IDLE_MINUTES": "0"}
    proc = subprocess.Popen([sys.executable, "-m", "grapevine", "serve-db"], env=env, cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        deadline = time.monotonic() + 180
        while (owner := DataDirLock(data).owner()) is None or not owner.ready:
            assert proc.poll() is None and time.monotonic() < deadline, owner
            time.sleep(0.5)
        assert owner.pid == proc.pid  # the same process, started again without them
        _without_secrets(owner)
        joined = _run(warm | SECRETS, tmp_path, "stats")  # and it serves the commands that have them
        assert joined.returncode == 0, joined.stdout + joined.stderr
    finally:
        proc.terminate()
        proc.wait(120)
