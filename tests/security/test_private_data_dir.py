"""Everything grapevine creates under the data directory is its user's alone: folders 0700, files 0600 (the
engine's records and logs too), the password file from its first byte; and `grapevine doctor` reports a data
directory that others can read, with the command that fixes it."""

from __future__ import annotations

import os
import shlex
import stat
from pathlib import Path

import pytest

from bot.listening._pending import PendingChanges
from common.files import exposed
from grapevine.ownership import DataDirLock
from graph.engines.arcadedb import password_for
from tests.security.cli import grapevine, mode, shell_umask
from tests.support.ports import free_port


@pytest.mark.slow
def test_a_command_on_the_embedded_engine_leaves_nothing_others_can_read(tmp_path: Path) -> None:
    data = tmp_path / "data"
    done = grapevine(tmp_path, "stats", GRAPEVINE_DATA_DIR=str(data), ARCADEDB_BOLT_PORT=str(free_port()),
                     ARCADEDB_HTTP_PORT=str(free_port()), ARCADEDB_AOT_CACHE="false")  # fmt: skip
    assert done.returncode == 0, done.stderr
    made = [p.relative_to(data).as_posix() for p in sorted(data.rglob("*"))]
    for expected in ("arcadedb.password", "logs/grapevine.log", "arcadedb/server.out", "arcadedb/config/server-users.jsonl"):
        assert expected in made, made
    assert any(name.startswith("arcadedb/databases/grapevine/") for name in made)  # the engine's record files
    assert any(name.startswith("arcadedb/log/") for name in made)  # and its own log
    assert [p.relative_to(tmp_path).as_posix() for p in exposed(data)] == []
    assert mode(data) == 0o700 and mode(data / "arcadedb.password") == 0o600


def test_the_password_file_is_private_from_its_first_byte(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No write-then-narrow window: the file is never made wider and narrowed after (chmod is not called)."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a mode narrowed after the file was written")

    monkeypatch.setattr(os, "chmod", refuse)
    monkeypatch.setattr(os, "fchmod", refuse)
    monkeypatch.setattr(Path, "chmod", refuse)
    with shell_umask():
        first = password_for(tmp_path / "data", None)
    assert password_for(tmp_path / "data", None) == first and len(first) >= 24
    assert mode(tmp_path / "data") == 0o700 and mode(tmp_path / "data" / "arcadedb.password") == 0o600
    assert [p.name for p in (tmp_path / "data").iterdir()] == ["arcadedb.password"]  # no temporary file left


def test_the_owner_record_and_the_lock_are_private(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with shell_umask():
        lock = DataDirLock(data)
        assert lock.acquire("grapevine stats", shared=False)
        try:
            lock.started(12345)
            assert {p.name: mode(p) for p in data.iterdir()} == {"engine.lock": 0o600, "engine.json": 0o600}
            assert mode(data) == 0o700
        finally:
            lock.release()


@pytest.mark.parametrize("name", ["pending_changes.jsonl", "unfinished_forgets.jsonl"])
def test_the_files_the_bot_keeps_are_private(tmp_path: Path, name: str) -> None:
    with shell_umask():
        pending = PendingChanges(tmp_path / "data" / name)
        pending.add({"user_id": "123456789012345678", "names": ["Charlie"]})
        assert mode(tmp_path / "data") == 0o700 and mode(pending.path) == 0o600
        pending.add({"user_id": "223456789012345678", "names": ["Dana"]})
        pending.keep(pending.load()[1:])  # rewritten through a temporary file
    assert mode(pending.path) == 0o600 and [p.name for p in (tmp_path / "data").iterdir()] == [name]


def test_doctor_reports_a_data_directory_others_can_read(tmp_path: Path) -> None:
    data = tmp_path / "old data"  # made by an earlier version, or by hand
    (data / "logs").mkdir(parents=True)
    (data / "logs" / "grapevine.log").write_text("{}\n")
    os.chmod(data, 0o755)
    os.chmod(data / "logs", 0o755)
    os.chmod(data / "logs" / "grapevine.log", 0o644)
    done = grapevine(tmp_path, "doctor", GRAPEVINE_DATA_DIR=str(data), GRAPEVINE_ENGINE="neo4j",
                     NEO4J_URI=f"bolt://127.0.0.1:{free_port()}", NEO4J_PASSWORD="x")  # fmt: skip
    assert done.returncode == 1 and "Traceback" not in done.stdout + done.stderr
    assert f"chmod -R go-rwx {shlex.quote(str(data))}" in done.stderr, done.stderr
    assert "3 files and folders" in done.stderr, done.stderr
    os.chmod(data, 0o700)  # inside a private folder, what it holds cannot be reached
    for path in (data / "logs", data / "logs" / "grapevine.log"):
        os.chmod(path, stat.S_IMODE(path.stat().st_mode) & 0o700)
    again = grapevine(tmp_path, "doctor", GRAPEVINE_DATA_DIR=str(data), GRAPEVINE_ENGINE="neo4j",
                      NEO4J_URI=f"bolt://127.0.0.1:{free_port()}", NEO4J_PASSWORD="x")  # fmt: skip
    assert "go-rwx" not in again.stderr, again.stderr
