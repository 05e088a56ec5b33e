"""A fault a user can cause (an engine that is not there, a bad setting, a missing
file) is one line on stderr and a non-zero exit, never a Python traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.ports import free_port

REPO = Path(__file__).resolve().parents[2]


def grapevine(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPEVINE_", "NEO4J_", "ARCADEDB_", "LLM_"))}
    return subprocess.run([sys.executable, "-m", "grapevine", *args], env={**clean, **env, "COLUMNS": "80"},
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)  # fmt: skip


@pytest.mark.parametrize(
    ("args", "env", "says"),
    [
        (("stats",), {"GRAPEVINE_ENGINE": "neo4j", "NEO4J_URI": f"bolt://127.0.0.1:{free_port()}", "NEO4J_PASSWORD": "x"},
         "graph engine error: Couldn't connect"),
        (("stats",), {"WINDOW_QUIET_SECONDS": "soon"}, "WINDOW_QUIET_SECONDS"),
        (("import", "no-such-export.json"), {}, "no-such-export.json"),
    ],
)  # fmt: skip
def test_a_fault_is_one_line_and_a_non_zero_exit(tmp_path: Path, args: tuple[str, ...], env: dict[str, str], says: str) -> None:
    done = grapevine(tmp_path, *args, **env)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr + done.stdout
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) <= 5 and says in done.stderr, done.stderr  # a usage error is typer's framed box


def test_an_unreachable_llm_is_one_line_and_a_non_zero_exit(tmp_path: Path) -> None:
    """The LLM fault class: windows wait (pending), the endpoint does not answer; the command says what is
    left and exits 1, without a traceback."""
    from tests.support.dce_builder import export_from_irc

    export = tmp_path / "talk.json"
    sample = REPO.parent / "shared" / "data" / "irc" / "dev" / "2005-06-27_12.raw.txt"
    export_from_irc(sample, export)
    doc = json.loads(export.read_text(encoding="utf-8"))
    doc["messages"] = doc["messages"][:200]  # a few windows are pending, as many as the fault needs
    export.write_text(json.dumps(doc), encoding="utf-8")
    env = {"GRAPEVINE_DATA_DIR": str(tmp_path / "data"), "ARCADEDB_BOLT_PORT": str(free_port()),
           "ARCADEDB_HTTP_PORT": str(free_port())}  # fmt: skip
    assert grapevine(tmp_path, "import", str(export), **env).returncode == 0  # no LLM: windows wait as pending
    dead = f"http://127.0.0.1:{free_port()}/v1"
    done = grapevine(tmp_path, "ingest", "--pending", **env, LLM_BASE_URL=dead, LLM_MAX_ATTEMPTS="1", LLM_TIMEOUT="2")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr + done.stdout
    assert "parked" in done.stdout and "LLM unreachable" in done.stdout, done.stdout
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "failed or were parked" in lines[0], done.stderr
