"""A command that starts the embedded engine says so at once on a terminal: the engine takes 20-40 s to start, and
a first command once printed nothing for 21 s."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.background_owner import stop_background_owner
from tests.support.ports import free_port

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("idle", ["0", "15"])
def test_the_first_line_comes_before_the_engine_starts(tmp_path: Path, idle: str) -> None:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPEVINE_", "ARCADEDB_", "LLM_", "ENGINE_"))}
    env = clean | {
        "GRAPEVINE_DATA_DIR": str(tmp_path / "data"),
        "ARCADEDB_BOLT_PORT": str(free_port()),
        "ARCADEDB_HTTP_PORT": str(free_port()),
        "ENGINE_IDLE_MINUTES": idle,
        "TTY_COMPATIBLE": "1",  # stderr as a terminal (rich's own switch): a script's stderr gets no such line
    }
    began = time.monotonic()
    process = subprocess.Popen([sys.executable, "-m", "grapevine", "stats"], env=env, cwd=tmp_path, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)  # fmt: skip
    try:
        assert process.stderr is not None
        first = process.stderr.readline()
        waited = time.monotonic() - began
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=120)
        stop_background_owner(tmp_path / "data", appear_within=10)
    assert first.startswith("starting the embedded engine (20-40 s)"), first
    assert ("serves the next commands" in first) == (idle != "0"), first
    assert waited < 15, waited  # the interpreter and the settings, not the engine
