"""The real `grapevine` CLI as a second process of the same deployment, joined to a test's ArcadeDB server."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from graph.store import GraphStore
from tests.support.scripted_llm import Reply, ScriptedLLMServer

# One window a call, progress lines often and at once: a long command a test can follow and stop.
ONE_BY_ONE = {"EXTRACTION_BATCH_MESSAGES": "1", "LOG_PROGRESS_SECONDS": "0.2", "PYTHONUNBUFFERED": "1"}
# `grapevine` as a terminal's foreground command runs it, Ctrl-C delivered: a run started in the background by a
# shell without job control (as CI may be) inherits SIGINT ignored, and Python keeps an inherited ignore. The child
# restores Python's own handler itself, because a preexec_fn is unsafe in a process with threads (the child can
# deadlock between fork and exec, and Popen waits for that exec without a deadline).
AT_A_TERMINAL = (
    "import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "runpy.run_module('grapevine', run_name='__main__', alter_sys=True)"
)


def cli_env(store: GraphStore, tmp_path: Path) -> dict[str, str]:
    engine = store.engine
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPEVINE_", "NEO4J_", "ARCADEDB_", "LLM_"))}
    return {
        **clean,
        "GRAPEVINE_DATA_DIR": str(tmp_path / "cli-data"),
        "ARCADEDB_EXTERNAL": "true",
        "ARCADEDB_HOST": engine.host,  # type: ignore[attr-defined]  # the ArcadeDB engine of the store fixture
        "ARCADEDB_BOLT_PORT": str(engine.bolt_port),  # type: ignore[attr-defined]
        "ARCADEDB_HTTP_PORT": str(engine.http_port),  # type: ignore[attr-defined]
        "ARCADEDB_DATABASE": engine.database,
        "ARCADEDB_PASSWORD": engine.password,  # type: ignore[attr-defined]
        "COLUMNS": "200",
    }


async def grapevine(
    store: GraphStore, tmp_path: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run `python -m grapevine ARGS` against the store's database, off the event loop (`env`: more settings)."""
    return await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "grapevine", *args],
        env=cli_env(store, tmp_path) | (env or {}),
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )


def ctrl_c_at_the_third_call(
    base: dict[str, str], cwd: Path, args: list[str], answer: Callable[[dict[str, Any]], Reply]
) -> tuple[int, str, str]:
    """Run `grapevine ARGS` against a scripted model that answers with `answer` and is slow from its third call
    on; press Ctrl-C while that call runs. Blocking (call it off the event loop): (exit code, stdout, stderr)."""
    held = threading.Event()
    calls = 0

    def responder(request: dict[str, Any]) -> Reply:
        nonlocal calls
        calls += 1
        if calls >= 3:
            held.wait(60)  # a slow model: the third call is still running when the user presses Ctrl-C
        return answer(request)

    with ScriptedLLMServer() as llm:
        llm.responder = responder
        env = base | ONE_BY_ONE | {"LLM_BASE_URL": llm.base_url, "LLM_MODEL": "scripted-model"}
        proc = subprocess.Popen([sys.executable, "-c", AT_A_TERMINAL, *args], env=env, cwd=cwd,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
        try:
            deadline = time.monotonic() + 120
            while calls < 3 and time.monotonic() < deadline:
                time.sleep(0.1)
            assert calls >= 3, "the third call never came"
            time.sleep(0.5)
            os.kill(proc.pid, signal.SIGINT)
            stdout, stderr = proc.communicate(timeout=120)
        finally:
            held.set()
            if proc.poll() is None:
                proc.kill()
    return proc.returncode, stdout, stderr
