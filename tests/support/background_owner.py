"""Stopping what a command left serving in the background: the engine a CLI command starts is a session of its
own, so a test that let one start stops it (SIGTERM) instead of leaving it idle."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from grapevine.ownership import DataDirLock, process_alive


def stop_background_owner(data: Path, appear_within: float = 0.0) -> None:
    """SIGTERM the process holding the data directory `data` and wait (up to a minute) until it is gone; when none
    holds it yet, look again for up to `appear_within` seconds (a command may still be handing it over)."""
    deadline = time.monotonic() + appear_within
    while True:
        owner = DataDirLock(data).owner()
        if owner is not None and process_alive(owner.pid):
            os.kill(owner.pid, signal.SIGTERM)
            for _ in range(300):
                if not process_alive(owner.pid):
                    return
                time.sleep(0.2)
        if time.monotonic() >= deadline:
            return
        time.sleep(0.5)
