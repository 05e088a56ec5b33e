"""The quick start's comparison waits for the AOT cache its uncounted round recorded (bench/quickstart.py)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from bench.quickstart import aot_settled


def test_nothing_recorded_or_a_cache_created_is_not_waited_for(tmp_path: Path) -> None:
    aot_settled(tmp_path / "none yet")
    (tmp_path / "engine-ab-cd.aot").write_bytes(b"created")
    (tmp_path / "engine-ab-cd.123.aotconf").write_bytes(b"recorded")
    started = time.monotonic()
    aot_settled(tmp_path)
    assert time.monotonic() - started < 1


def test_a_cache_being_created_is_waited_for(tmp_path: Path) -> None:
    (tmp_path / "engine-ab-cd.123.aotconf").write_bytes(b"recorded")
    (tmp_path / "engine-ab-cd.aot.456.part").write_bytes(b"half written")
    started = time.monotonic()
    aot_settled(tmp_path, patience=2)
    assert time.monotonic() - started >= 2


def test_a_recording_whose_creation_never_came_is_not_waited_for_long(tmp_path: Path) -> None:
    recorded = tmp_path / "engine-ab-cd.123.aotconf"
    recorded.write_bytes(b"recorded")
    os.utime(recorded, (time.time() - 60,) * 2)
    started = time.monotonic()
    aot_settled(tmp_path, patience=10)
    assert time.monotonic() - started < 1
