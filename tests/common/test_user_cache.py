"""Values kept in the user's cache folder (common/user_cache.py) are built by one process at a time: `grapevine
demo` builds the names lists in a process of its own, and a forget or an export that starts before it ends waits
for it and reads what it stored instead of building the same files beside it. A builder that dies holds no one up.

Each builder here is a process of its own; that one builder waits for the other is read from the kernel's table
of locks (/proc/locks: a waiter's line is marked `->`), never from how long anything took."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from common.user_cache import cached

REPO = Path(__file__).resolve().parents[2]
# A builder: `cached` of one file whose build notes the builder's pid in a file of builds, then waits for `go`.
BUILDER = """
import json, os, sys, time
from pathlib import Path
from common.user_cache import cached
path, builds, go = map(Path, sys.argv[1:4])
def build():
    with open(builds, "a") as f:
        f.write(f"{os.getpid()}\\n")
    deadline = time.monotonic() + 60
    while not go.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    return {"by": os.getpid()}
print(json.dumps(cached(path, {"v": 1}, build, lambda d: d if isinstance(d, dict) else None)))
"""
LOCKS = Path("/proc/locks")
pytestmark = pytest.mark.skipif(not LOCKS.is_file(), reason="the kernel's table of locks is Linux's /proc/locks")


def builder(folder: Path, tmp_path: Path) -> subprocess.Popen[str]:
    args = [str(folder / "lists.json"), str(tmp_path / "builds"), str(tmp_path / "go")]
    return subprocess.Popen([sys.executable, "-c", BUILDER, *args], cwd=REPO, stdout=subprocess.PIPE, text=True)


def builds(tmp_path: Path) -> list[int]:
    path = tmp_path / "builds"
    return [int(line) for line in path.read_text(encoding="utf-8").split()] if path.exists() else []


def waiting_for_a_lock(pid: int) -> bool:
    """Whether the process is blocked on a file lock another holds."""
    for line in LOCKS.read_text(encoding="utf-8").splitlines():
        fields = line.split()
        if len(fields) > 5 and fields[1] == "->" and fields[5] == str(pid):
            return True
    return False


def until(condition: Callable[[], bool], what: str) -> None:
    """Poll `condition` (a callable) until it holds; a deadline only so that a broken build fails, not hangs."""
    deadline = time.monotonic() + 60
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def test_a_second_builder_waits_for_the_first_and_reads_its_file(tmp_path: Path) -> None:
    folder = tmp_path / "cache" / "names"
    first = builder(folder, tmp_path)
    until(lambda: len(builds(tmp_path)) == 1, "the first builder started building")
    second = builder(folder, tmp_path)
    until(lambda: len(builds(tmp_path)) == 2 or waiting_for_a_lock(second.pid), "the second builder built or waited")
    (tmp_path / "go").touch()
    out_first, _ = first.communicate(timeout=60)
    out_second, _ = second.communicate(timeout=60)
    assert builds(tmp_path) == [first.pid]  # one build, not two at once
    assert json.loads(out_first) == json.loads(out_second) == {"by": first.pid}  # the second read the first's file
    assert sorted(os.listdir(folder)) == ["lists.json"]  # the lock leaves no file behind
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / "lists.json").stat().st_mode) == 0o600


def test_a_builder_that_dies_holds_no_one_up(tmp_path: Path) -> None:
    folder = tmp_path / "names"
    first = builder(folder, tmp_path)
    until(lambda: len(builds(tmp_path)) == 1, "the first builder started building")
    first.send_signal(signal.SIGKILL)  # no chance to let go of anything: the kernel drops its lock
    first.wait(timeout=60)
    (tmp_path / "go").touch()
    second = builder(folder, tmp_path)
    out, _ = second.communicate(timeout=60)
    assert second.returncode == 0
    assert json.loads(out) == {"by": second.pid} and builds(tmp_path) == [first.pid, second.pid]


def test_a_build_inside_a_build_of_the_same_folder_does_not_wait_for_itself(tmp_path: Path) -> None:
    """The names list of every language is built from each language's list, kept in the same folder."""

    def every() -> str:
        return "\n".join(cached(tmp_path / f"{n}.json", {"v": 1}, lambda: n, str) for n in ("a", "b"))

    assert cached(tmp_path / "every.json", {"v": 1}, every, str) == "a\nb"
    assert sorted(os.listdir(tmp_path)) == ["a.json", "b.json", "every.json"]
