"""`grapevine ingest --pending` tells its user where it is: the total of windows, a line per LLM call with its
time and outcome, windows settled out of the total with the time left, one plain line for a window that failed
saying why and what to do, and on Ctrl-C a one-line summary and exit 130. Without an LLM configured it is a
configuration error (exit 2) before the engine is touched."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from graph.store import GraphStore
from tests.support.cli_process import ONE_BY_ONE, cli_env, ctrl_c_at_the_third_call, grapevine
from tests.support.scripted import answer, fact
from tests.support.scripted_llm import Reply, ScriptedLLMServer

SAMPLE = Path(__file__).resolve().parents[3] / "examples" / "discord-export"


def _good(request: dict[str, Any]) -> Reply:
    return answer("They planned a hike.")  # no facts is a valid answer: the window is done


def _weak(request: dict[str, Any]) -> Reply:
    """A model that cannot follow the schema: its facts name refs the prompt does not hold."""
    return answer("They talked.", facts=[fact("Someone said something", about=["U9"], source=["m99"])])


async def _pending(store: GraphStore, tmp_path: Path) -> None:
    done = await grapevine(store, tmp_path, "import", *(str(p) for p in sorted(SAMPLE.glob("*.json"))))
    assert done.returncode == 0, done.stderr


async def test_ingest_prints_the_total_each_call_the_windows_left_and_why_a_window_failed(
    store: GraphStore, tmp_path: Path
) -> None:
    await _pending(store, tmp_path)
    calls = 0

    def responder(request: dict[str, Any]) -> Reply:
        nonlocal calls
        calls += 1
        return _weak(request) if calls == 1 else _good(request)  # the first window's answer validates, then resolves to nothing

    with ScriptedLLMServer() as llm:
        llm.responder = responder
        env = ONE_BY_ONE | {"LLM_BASE_URL": llm.base_url, "LLM_MODEL": "scripted-model", "EXTRACTION_MAX_ATTEMPTS": "1"}
        done = await grapevine(store, tmp_path, "ingest", "--pending", env=env)
    lines = done.stdout.splitlines()
    assert done.returncode == 1, done.stdout + done.stderr  # a window failed
    assert "ingest: 8 windows to extract with scripted-model" in lines, done.stdout
    call_lines = [
        line for line in lines if re.match(r"^ingest: call \d+: \d+\.\d s, ok, [\d,]+ prompt \+ [\d,]+ completion tokens$", line)
    ]
    assert len(call_lines) >= 8, done.stdout
    progress = [re.match(r"^ingest: windows (\d+)/8 \((\d+) done, (\d+) failed\)", line) for line in lines]
    settled = [int(m[1]) for m in progress if m]
    assert settled == list(range(1, 9)), done.stdout  # each window once, in order, out of the total
    assert any(re.search(r"windows 1/8 .*, about \d+:\d\d:\d\d left", line) for line in lines), done.stdout
    failed = [line for line in lines if line.startswith("ingest: a window failed:")]
    assert len(failed) == 1, done.stdout
    assert "did not follow the extraction schema" in failed[0] and "use an instruction-tuned model" in failed[0]
    assert "docs/llm-servers.md" in failed[0] and "Traceback" not in done.stderr


async def test_ctrl_c_stops_ingest_with_a_one_line_summary_and_exit_130(store: GraphStore, tmp_path: Path) -> None:
    await _pending(store, tmp_path)
    await asyncio.to_thread(_interrupted, cli_env(store, tmp_path), tmp_path)


def _interrupted(base: dict[str, str], tmp_path: Path) -> None:
    returncode, stdout, stderr = ctrl_c_at_the_third_call(base, tmp_path, ["ingest", "--pending"], _good)
    assert returncode == 130, stdout + stderr
    assert "Traceback" not in stdout + stderr, stderr
    said = [line for line in stderr.splitlines() if line.strip()]
    assert len(said) == 1, stderr
    assert re.fullmatch(
        r"ingest: stopped by Ctrl-C: windows 2/8 settled \(2 done, 0 failed\) in \d+:\d\d:\d\d, \d+ LLM calls; the rest stay "
        r"pending for the next `grapevine ingest --pending`",
        said[0],
    ), said[0]


async def test_ingest_without_an_llm_is_a_configuration_error_before_the_engine(tmp_path: Path) -> None:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPEVINE_", "ARCADEDB_", "LLM_"))}
    env = clean | {"GRAPEVINE_DATA_DIR": str(tmp_path / "data"), "ARCADEDB_BOLT_PORT": "1", "ARCADEDB_HTTP_PORT": "2"}
    started = time.monotonic()
    done = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "grapevine", "ingest", "--pending"], env=env, cwd=tmp_path,
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    said = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(said) == 1 and "LLM_BASE_URL is not set" in said[0], done.stderr
    assert not (tmp_path / "data" / "arcadedb").exists(), "no engine was started"
    assert time.monotonic() - started < 30
