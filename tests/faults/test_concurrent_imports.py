"""Two `grapevine import`s of one export started together with no engine running: both join the engine the first
leaves serving, and each window is extracted once (the guild's turn is a lock in the data directory, so the second
finds the windows the first extracted done), as one import alone extracts them."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.support.dce_builder import export_from_irc
from tests.support.ports import free_port
from tests.support.prompt_reader import prompt_of, section
from tests.support.scripted import answer, batch_aware, fact
from tests.support.scripted_llm import Reply, ScriptedLLMServer

pytestmark = pytest.mark.slow
SHARED = next(
    (p / "shared" / "data" for p in Path(__file__).resolve().parents if (p / "shared" / "data").is_dir()), Path("shared")
)
SAMPLE = SHARED / "irc" / "dev" / "2005-06-27_12.raw.txt"
MESSAGES = 150


def _env(data: Path, llm: ScriptedLLMServer) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPEVINE_", "ARCADEDB_", "LLM_", "NEO4J_", "ENGINE_"))}
    return clean | {
        "GRAPEVINE_DATA_DIR": str(data), "ARCADEDB_BOLT_PORT": str(free_port()), "ARCADEDB_HTTP_PORT": str(free_port()),
        "ENGINE_IDLE_MINUTES": "15", "LLM_BASE_URL": llm.base_url, "LLM_API_KEY": "k", "LLM_MODEL": "m",
    }  # fmt: skip


def _import(env: dict[str, str], cwd: Path, export: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "grapevine", "import", str(export)], env=env, cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip


def _stop_engine(env: dict[str, str], cwd: Path) -> None:
    subprocess.run([sys.executable, "-m", "grapevine", "serve-db", "--stop"], env=env, cwd=cwd, capture_output=True, timeout=300)


def test_two_imports_at_once_extract_each_window_once(tmp_path: Path) -> None:
    full = tmp_path / "full.json"
    export_from_irc(SAMPLE, full, guild_id="700000000000000001", channel_id="710000000000000001")
    doc = json.loads(full.read_text(encoding="utf-8"))
    export = tmp_path / "trial.json"
    export.write_text(json.dumps(doc | {"messages": doc["messages"][:MESSAGES]}), encoding="utf-8")
    asked: Counter[str] = Counter()
    lock = threading.Lock()

    def per_window(request: dict[str, Any]) -> Reply:
        window = section(prompt_of(request), "WINDOW")
        with lock:
            asked["\n".join(window)] += 1
        first = re.match(r'm1 \[[^\]]+\] (U\d+) [^:]+: "(.*)"$', window[0])
        assert first is not None, window[0]
        return answer(f"{first[1]} spoke.", facts=[fact(f"Said: {first[2][:80]}", about=[first[1]], source=["m1"])])

    with ScriptedLLMServer() as llm:
        llm.responder = batch_aware(per_window)
        alone_env = _env(tmp_path / "alone", llm)
        try:
            done = _import(alone_env, tmp_path, export)
            out, err = done.communicate(timeout=600)
            assert done.returncode == 0, out + err
        finally:
            _stop_engine(alone_env, tmp_path)
        alone = dict(asked)
        assert alone and max(alone.values()) == 1
        asked.clear()

        env = _env(tmp_path / "together", llm)
        try:
            both = [_import(env, tmp_path, export), _import(env, tmp_path, export)]
            for proc in both:
                out, err = proc.communicate(timeout=600)
                assert proc.returncode == 0, out + err
        finally:
            _stop_engine(env, tmp_path)
    twice = {w: n for w, n in asked.items() if n > 1}
    assert not twice, f"{len(twice)} of {len(asked)} windows asked more than once"
    assert set(asked) == set(alone)
