"""The whole path through a real local LLM server: llama.cpp's `llama-server` built from PyPI's source and
the Gemma 3 270M model from PyPI (scripts/llama_server), on loopback. A base model this small copies
and loops, so this proves the boundary, not extraction quality: every window ends `done` or `failed`
with its reason within a bounded time, nothing is lost or written twice, what a finished answer yields
lands as facts with provenance, and a reply comes back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.dce_builder import export_from_irc
from tests.support.ports import free_port

pytestmark = [pytest.mark.slow, pytest.mark.real_llm, pytest.mark.serial]  # one core for the model, bounded waits

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO.parent / "shared" / "data" / "irc" / "dev" / "2009-10-01_17.raw.txt"
MESSAGES = 60  # two or three windows: the real model takes 10-30 s a call on this CPU
WINDOW_BOUND_S = 600  # an extraction call's timeout for a local endpoint (llm.client.LOCAL_TIMEOUT)


@pytest.fixture(scope="module")
def llama_server() -> Iterator[str]:
    started = time.monotonic()
    built = subprocess.run(["bash", str(REPO / "scripts" / "llama_server")], capture_output=True, text=True, timeout=3600)
    assert built.returncode == 0, f"scripts/llama_server failed:\n{built.stderr[-3000:]}"
    binary, model = built.stdout.split()[-2:]
    port = free_port()
    server = subprocess.Popen(
        [binary, "-m", model, "--alias", "gemma3-270m", "--host", "127.0.0.1", "--port", str(port), "-c", "8192",
         "-t", "1", "-np", "1", "-n", "512", "--chat-template-file", str(REPO / "tests/support/llm/gemma3.jinja")],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass
            assert server.poll() is None, f"llama-server exited: {server.stderr.read()[-2000:] if server.stderr else ''}"
            assert time.monotonic() < deadline, "llama-server did not become ready within 180 s"
            time.sleep(0.5)
        print(f"\nreal LLM server ready after {time.monotonic() - started:.0f} s (build or cache included)")
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()


def grapevine(env: dict[str, str], *args: str, timeout: float = 3600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "grapevine", *args], env=env, capture_output=True, text=True,
                          timeout=timeout, cwd=REPO)  # fmt: skip


def test_a_real_model_through_the_whole_path(llama_server: str, tmp_path: Path) -> None:
    if not SAMPLE.is_file():
        pytest.fail(f"the shared IRC sample is missing: {SAMPLE}")
    started = time.monotonic()
    export = tmp_path / "export.json"
    export_from_irc(SAMPLE, export)
    data = json.loads(export.read_text(encoding="utf-8"))
    data["messages"] = data["messages"][:MESSAGES]
    data["messageCount"] = len(data["messages"])
    export.write_text(json.dumps(data), encoding="utf-8")
    log = tmp_path / "grapevine.log"
    env = {
        **os.environ,
        "GRAPEVINE_DATA_DIR": str(tmp_path / "data"),
        "ARCADEDB_BOLT_PORT": str(free_port()),
        "ARCADEDB_HTTP_PORT": str(free_port()),
        "ARCADEDB_HEAP": "1g",
        "LLM_BASE_URL": llama_server,
        "LLM_MODEL": "gemma3-270m",
        "LLM_MAX_TOKENS": "384",
        "LOG_FILE": str(log),
        "LOG_LEVEL": "INFO",
    }

    doctor = grapevine(env, "doctor", timeout=600)
    assert "structured output works in mode json_schema" in doctor.stdout, doctor.stdout + doctor.stderr
    assert "context size 8,192 tokens" in doctor.stdout

    imported = grapevine(env, "import", str(export))  # extracts in batches; exits 1 when a window failed
    assert imported.returncode in (0, 1), imported.stdout[-2000:] + imported.stderr[-2000:]
    assert "Traceback" not in imported.stderr
    ingested = grapevine(env, "ingest", "--pending")
    assert ingested.returncode in (0, 1) and "Traceback" not in ingested.stderr, ingested.stderr[-2000:]

    listed = grapevine(env, "query", "windows_by_status", "-p", "guild_id=700000000000000042", "--json").stdout
    windows = [json.loads(line) for line in listed.splitlines() if line.strip()]
    statuses = {row["status"]: row for row in windows}
    assert set(statuses) <= {"done", "failed"}, windows  # nothing left pending, nothing stuck
    failed = [json.loads(line) for line in log.read_text().splitlines() if '"extraction_failed"' in line]
    assert all(event.get("reason") for event in failed)  # a failure always says why

    stats = grapevine(env, "stats").stdout
    again = grapevine(env, "import", str(export))
    assert again.returncode == 0 and grapevine(env, "stats").stdout == stats  # nothing written twice

    events = [json.loads(line) for line in log.read_text().splitlines()]
    done = [e for e in events if e.get("event") == "extraction_done"]
    for event in done:  # every finished answer: facts written, or each thing set aside with its reason
        assert event["facts"] >= 0 and all(isinstance(reason, str) and reason for reason in event["dropped"])
    calls = [e for e in events if e.get("event") == "call" and e.get("purpose") == "extraction"]
    # `ingest --pending` batches a guild's windows: a call names its window, or its batch of windows
    assert calls and all(e["prompt_tokens"] > 0 and (e.get("window") or e.get("batch")) for e in calls)
    assert all(e["latency_ms"] < WINDOW_BOUND_S * 1000 * 3 for e in calls)

    unsourced = grapevine(env, "query", "single_source_facts", "-p", "guild_id=700000000000000042", "--json")
    assert unsourced.returncode == 0

    reply = _reply(env)
    assert reply.strip(), "the real model gave no reply"
    print(f"\nreal-server path: {len(done)} windows done, {len(failed)} failed, {len(calls)} extraction calls, "
          f"{time.monotonic() - started:.0f} s")  # fmt: skip


def _reply(env: dict[str, str]) -> str:
    """A reply through the bot's own steps: the reply context from the graph, then the reply call."""
    code = (
        "import asyncio, json, sys\n"
        "from datetime import datetime, UTC\n"
        "from grapevine.config import load_settings\n"
        "from grapevine.runtime import open_store\n"
        "from llm.client import build_llm\n"
        "from recall.assemble import ContextRequest, build_reply_messages\n"
        "from recall.gather import build_context\n"
        "async def main():\n"
        "    s = load_settings()\n"
        "    async with open_store(s) as rt:\n"
        "        req = ContextRequest(guild_id='700000000000000042', channel_id=sys.argv[1], author_id=sys.argv[2],\n"
        "                             message_text='anyone tried the new kernel?', message_id=None, at=datetime.now(UTC))\n"
        "        ctx = await build_context(rt.store, req, s.context)\n"
        "    llm = build_llm(s.llm)\n"
        "    print(json.dumps(await llm.chat(build_reply_messages(ctx, 'Tester', req.message_text, 'grapevine'))))\n"
        "    await llm.aclose()\n"
        "asyncio.run(main())\n"
    )
    export_channel, author = _first_channel_and_author(env)
    done = subprocess.run([sys.executable, "-c", code, export_channel, author], env=env, capture_output=True, text=True,
                          timeout=900, cwd=REPO)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return str(json.loads(done.stdout.strip().splitlines()[-1]))


def _first_channel_and_author(env: dict[str, str]) -> tuple[str, str]:
    data = json.loads(Path(env["GRAPEVINE_DATA_DIR"]).parent.joinpath("export.json").read_text(encoding="utf-8"))
    return str(data["channel"]["id"]), str(data["messages"][0]["author"]["id"])
