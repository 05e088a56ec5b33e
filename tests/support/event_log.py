"""Events written to a file for one block of a test, the process's logging set back as it was after."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from pathlib import Path

from common import events


@contextlib.contextmanager
def events_to(path: Path, level: str = "INFO") -> Iterator[Path]:
    root = logging.getLogger()
    handlers, before = root.handlers[:], root.level
    try:
        events.configure(level, file=path)
        yield path
    finally:
        root.handlers, root.level = handlers, before
