"""One owner per data directory. The command that starts the embedded engine holds an exclusive lock on
`<data dir>/engine.lock` for as long as it runs, and says who it is in `<data dir>/engine.json` (its pid,
its command, whether it shares the engine, and a random token it also writes into the graph). Another
command on the same directory joins only an engine that is shared (`serve-db`, the bot, the explorer)
and that proves, by the token in its graph, that it serves this directory; otherwise it stops with one
line saying who holds the directory. A command pointed at another directory never joins an engine that
happens to listen on the same ports."""

from __future__ import annotations

import fcntl
import json
import os
import secrets
import signal
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO

from common.files import private_dir, private_opener
from graph.engines.arcadedb_child import engine_running

# how often a command waiting on another's engine (starting, stopping, ending) looks again: each look reads a small
# file or /proc, and what waits on it (the quick start's first command, `serve-db --stop`) waits half of it on average
HANDOVER_POLL_S = 0.05
ENGINE_ROOT = "arcadedb"  # the embedded engine's folder in the data directory


def _locked(path: Path, operation: int) -> IO[str] | None:
    """`path` opened private and locked (`fcntl.LOCK_EX` or `LOCK_SH`) without waiting; None when another holds it."""
    handle = open(path, "a+", encoding="utf-8", opener=private_opener)
    try:
        fcntl.flock(handle, operation | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        return None
    return handle


class DataDirBusy(RuntimeError):
    """The data directory is held by another command, or the ports by an engine of another directory."""


@dataclass(frozen=True)
class OwnerRecord:
    pid: int
    command: str
    shared: bool
    token: str = field(repr=False)
    engine_pid: int | None = None  # the engine child it started, once started
    ready: bool = False  # its engine serves, with the schema set up and the token in its graph: others may join
    schema: str = ""  # the set-up it ran (graph.schema.schema_version_key): a command joining it runs it no more


class DataDirLock:
    """The exclusive lock of one data directory; held from `acquire` until `release` (or the process ends:
    the kernel drops a dead process's lock, so a crashed owner never blocks the next command)."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self._file: IO[str] | None = None
        self.record: OwnerRecord | None = None
        self.previous: OwnerRecord | None = None  # what a crashed owner left: its engine may still be stopping

    @property
    def _record_path(self) -> Path:
        return self.data_dir / "engine.json"

    def acquire(self, command: str, *, shared: bool) -> bool:
        """True when this process now owns the directory (and must start its engine)."""
        private_dir(self.data_dir)
        handle = _locked(self.data_dir / "engine.lock", fcntl.LOCK_EX)
        if handle is None:
            return False
        self._file = handle
        self.previous = self.owner()
        self._write(OwnerRecord(pid=os.getpid(), command=command, shared=shared, token=secrets.token_hex(16)))
        return True

    def started(self, engine_pid: int) -> None:
        """Record the engine child this owner started."""
        assert self.record is not None
        self._write(OwnerRecord(**{**asdict(self.record), "engine_pid": engine_pid}))

    def serving(self, schema: str = "") -> None:
        """Record that the engine serves (with the schema set up as `schema` says, when it was): a command waiting
        to join it may go ahead."""
        assert self.record is not None
        self._write(OwnerRecord(**{**asdict(self.record), "ready": True, "schema": schema}))

    def wait_for_orphan(self, timeout: float = 60.0) -> bool:
        """The engine a crashed owner started stops by itself once it sees its owner gone (see
        graph/engines/arcadedb_child.py); wait for that, known by its recorded pid or, when the owner died
        before it could record one, by the engine root's lock. True when none is left running."""
        pid = self.previous.engine_pid if self.previous else None
        root = str(self.data_dir / ENGINE_ROOT)
        deadline = time.monotonic() + timeout
        while (pid is not None and process_alive(pid)) or engine_running(root):
            if time.monotonic() > deadline:
                return False
            time.sleep(0.2)  # each look takes the engine root's lock for a moment: not more often
        return True

    def _write(self, record: OwnerRecord) -> None:
        self.record = record
        tmp = self._record_path.with_suffix(".json.tmp")
        tmp.unlink(missing_ok=True)  # a file left by a crash keeps its mode: write a new one
        with open(tmp, "w", encoding="utf-8", opener=private_opener) as f:
            f.write(json.dumps(asdict(record)))
        tmp.replace(self._record_path)

    def owner(self) -> OwnerRecord | None:
        """Who holds the directory now, as it wrote it (None when nobody ever did or it is unreadable)."""
        try:
            return OwnerRecord(**json.loads(self._record_path.read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError):
            return None

    def release(self) -> None:
        if self._file is None:
            return
        self._record_path.unlink(missing_ok=True)
        fcntl.flock(self._file, fcntl.LOCK_UN)
        self._file.close()
        self._file = None


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie (exited, not yet reaped by its parent) is not running
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True


def busy_message(data_dir: Path, owner: OwnerRecord | None) -> str:
    who = f"`{owner.command}` (pid {owner.pid})" if owner else "another grapevine command"
    return (
        f"{data_dir} is in use by {who}: wait for it to finish, or run `grapevine serve-db` to share the engine between commands"
    )


def foreign_engine_message(data_dir: Path, bolt_port: int) -> str:
    return (
        f"an engine that does not serve {data_dir} listens on port {bolt_port}: set ARCADEDB_BOLT_PORT and "
        "ARCADEDB_HTTP_PORT to free ports for this data directory, or point GRAPEVINE_DATA_DIR at the directory it serves"
    )


USERS = "engine.users"  # commands joined to a shared engine hold a shared lock on it; their last use is its mtime


class Joined:
    """A command's use of a shared engine: a shared lock on `<data dir>/engine.users` while it runs. An engine
    started in the background stops once no command has held it for its idle time; it takes the lock
    exclusively first, so a command arriving as it stops waits for it and starts a new one."""

    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / USERS
        self._file: IO[str] | None = None

    def enter(self, patience: float = 1.0) -> bool:
        """False when the engine is stopping (its idle time is up). The engine takes the lock for a moment each time
        it looks whether it is idle, so a lock held for less than `patience` seconds is waited for."""
        deadline = time.monotonic() + patience
        while (handle := _locked(self.path, fcntl.LOCK_SH)) is None:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        self._file = handle
        os.utime(self.path)
        return True

    def leave(self) -> None:
        if self._file is None:
            return
        os.utime(self.path)
        fcntl.flock(self._file, fcntl.LOCK_UN)
        self._file.close()
        self._file = None


class IdleWatch:
    """Held by an engine serving in the background: `idle()` says when no command has used it for `seconds`, and
    from then on keeps the users' lock, so no command joins an engine that is stopping."""

    def __init__(self, data_dir: Path, seconds: float) -> None:
        self.path = data_dir / USERS
        self.seconds = seconds
        self.last_used = time.time()
        self._file = open(self.path, "a+", encoding="utf-8", opener=private_opener)

    def idle(self) -> bool:
        try:
            fcntl.flock(self._file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # a command is joined now
            self.last_used = time.time()
            return False
        self.last_used = max(self.last_used, self.path.stat().st_mtime)
        if time.time() - self.last_used >= self.seconds:
            return True  # the lock stays taken until the process ends
        fcntl.flock(self._file, fcntl.LOCK_UN)
        return False

    def close(self) -> None:
        self._file.close()


def wait_until_gone(data_dir: Path, timeout: float) -> bool:
    """Wait for the directory's owner to end (an engine stopping); True when it did."""
    deadline = time.monotonic() + timeout
    lock = DataDirLock(data_dir)
    while (owner := lock.owner()) is not None and process_alive(owner.pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(HANDOVER_POLL_S)
    return True


def wait_until_ready(data_dir: Path, timeout: float) -> OwnerRecord | None:
    """The owner of a shared engine once it serves (None when the owner ends or is not shared, or at the timeout)."""
    deadline = time.monotonic() + timeout
    lock = DataDirLock(data_dir)
    while (owner := lock.owner()) is not None and owner.shared and process_alive(owner.pid):
        if owner.ready or time.monotonic() > deadline:
            return owner if owner.ready else None
        time.sleep(HANDOVER_POLL_S)
    return None


def stop_owner(owner: OwnerRecord, timeout: float = 60.0, *, force: bool = False) -> bool:
    """Ask the process serving a shared engine to stop (SIGTERM: it stops its engine and lets go of the
    directory); True once it has ended. With `force`, one that has not ended by `timeout` is killed (an owner
    whose engine is gone: the kernel drops its lock, and an engine child still running stops once its owner is
    gone, graph/engines/arcadedb_child.py)."""
    for sig in (signal.SIGTERM, signal.SIGKILL) if force else (signal.SIGTERM,):
        try:
            os.kill(owner.pid, sig)
        except ProcessLookupError:
            return True
        deadline = time.monotonic() + timeout
        while process_alive(owner.pid):
            if time.monotonic() > deadline:
                break
            time.sleep(HANDOVER_POLL_S)
        else:
            return True
    return False
