"""The data directory's locks, between the processes of one machine (flock locks held on separate opens of a file
conflict within one process too, so one test process plays both sides)."""

from __future__ import annotations

import fcntl
import threading
from pathlib import Path

from grapevine.ownership import IdleWatch, Joined


def test_a_command_joins_an_engine_that_looks_whether_it_is_idle_just_then(tmp_path: Path) -> None:
    """The background engine takes the users' lock for a moment at each look; a command arriving in that moment
    joined nothing and waited minutes for an engine that was not stopping."""
    watch = IdleWatch(tmp_path, seconds=3600)
    look = open(tmp_path / "engine.users", "a+")  # released by the timer's thread, closed below
    try:
        fcntl.flock(look, fcntl.LOCK_EX)  # what `watch.idle()` takes while it looks
        threading.Timer(0.3, fcntl.flock, (look, fcntl.LOCK_UN)).start()
        joined = Joined(tmp_path)
        assert joined.enter(), "a look of a moment is no stop"
        assert not watch.idle()  # and the engine sees the command joined
        joined.leave()
    finally:
        look.close()
        watch.close()


def test_a_command_does_not_join_an_engine_that_is_stopping(tmp_path: Path) -> None:
    watch = IdleWatch(tmp_path, seconds=0)
    try:
        assert watch.idle()  # idle: the lock stays taken until it ends
        assert not Joined(tmp_path).enter(patience=0.3)
    finally:
        watch.close()
