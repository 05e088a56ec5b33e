"""`grapevine import` with an LLM configured extracted each closed window with its own call.
Now the closed windows of the export's guild queue as pending episodes and, when the file is read,
are extracted in batches, as `grapevine ingest --pending` does. Through the CLI, on the real engine."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.faults.test_buffered_after_crash import GUILD, facts_by_episode, first_line
from tests.faults.test_cli_faults import grapevine
from tests.support.ports import free_port
from tests.support.prompt_reader import batch_parts
from tests.support.scripted import batch_aware
from tests.support.scripted_llm import ScriptedLLMServer

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)


def _export(tmp_path: Path) -> Path:
    """Three conversations of four messages, an hour apart: three windows closed by quiet time."""
    messages = [
        {"id": f"9000000000000{c}{i:04d}", "type": "Default", "timestamp": (T0 + timedelta(hours=c, minutes=i)).isoformat(),
         "timestampEdited": None, "content": f"conversation {c} message {i}",
         "author": {"id": "330000000000000001", "name": "alice"}}
        for c in range(3) for i in range(4)
    ]  # fmt: skip
    doc = {"guild": {"id": GUILD, "name": "g"}, "channel": {"id": "810000000000000001", "name": "general"},
           "messages": messages}  # fmt: skip
    path = tmp_path / "talk.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _env(tmp_path: Path) -> dict[str, str]:
    return {"GRAPEVINE_DATA_DIR": str(tmp_path / "data"), "ARCADEDB_BOLT_PORT": str(free_port()),
            "ARCADEDB_HTTP_PORT": str(free_port())}  # fmt: skip


def test_an_import_closing_three_windows_makes_one_call_and_three_episodes(tmp_path: Path) -> None:
    env = _env(tmp_path)
    with ScriptedLLMServer() as llm:
        llm.responder = batch_aware(first_line)
        done = grapevine(tmp_path, "import", str(_export(tmp_path)), **env, LLM_BASE_URL=llm.base_url, LLM_API_KEY="k",
                         LLM_MODEL="m")  # fmt: skip
        again = grapevine(tmp_path, "import", str(_export(tmp_path)), **env, LLM_BASE_URL=llm.base_url,
                          LLM_API_KEY="k", LLM_MODEL="m")  # fmt: skip
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stdout.split())  # the console wraps lines
    assert "3 windows {'done': 3}" in said and "1 LLM calls" in said, done.stdout
    assert llm.calls == 1  # the batch count: the guild's three closed windows go in one call
    assert [head for head, _ in batch_parts(llm.requests[0])] == ["W1", "W2", "W3"]
    by_episode = asyncio.run(facts_by_episode(env))
    wanted = [{f"Alice said conversation {c} message 0"} for c in range(3)]  # three episodes, each its own window's
    assert sorted(by_episode.values(), key=sorted) == wanted, by_episode
    assert again.returncode == 0 and llm.calls == 1, again.stderr  # importing it again extracts nothing twice
    assert "3 windows {'done': 3}" in " ".join(again.stdout.split()), again.stdout


def test_an_import_whose_llm_is_unreachable_parks_its_windows_and_exits_one(tmp_path: Path) -> None:
    env = _env(tmp_path)
    dead = f"http://127.0.0.1:{free_port()}/v1"
    done = grapevine(tmp_path, "import", str(_export(tmp_path)), **env, LLM_BASE_URL=dead, LLM_MAX_ATTEMPTS="1",
                     LLM_TIMEOUT="2")  # fmt: skip
    assert done.returncode == 1
    assert "Traceback" not in done.stderr + done.stdout
    said = " ".join(done.stdout.split())
    assert "3 windows {" in said and "'parked'" in said and "'done'" not in said, done.stdout  # none extracted
    assert "were parked (LLM unreachable)" in done.stderr, done.stderr


def test_importing_again_with_an_llm_extracts_what_an_import_without_one_left_pending(tmp_path: Path) -> None:
    env = _env(tmp_path)
    assert grapevine(tmp_path, "import", str(_export(tmp_path)), **env).returncode == 0  # no LLM: windows wait
    with ScriptedLLMServer() as llm:
        llm.responder = batch_aware(first_line)
        done = grapevine(tmp_path, "import", str(_export(tmp_path)), **env, LLM_BASE_URL=llm.base_url, LLM_API_KEY="k",
                         LLM_MODEL="m")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "3 windows {'done': 3}" in " ".join(done.stdout.split()), done.stdout
    assert llm.calls == 1  # the batch count: the three pending windows in one call
