"""Every command pays for what the CLI imports as it starts: what only some commands need (the graph driver, numpy
beside it, the settings' validation, looking a name up, the demo's start-over) is imported by those commands, when
they run. `--help` lists every command without any of it, and `serve-db --stop`, which only signals the process
serving the data directory, runs without the driver."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
ONLY_SOME_COMMANDS = ("graph.reads.names", "graph.reads.operator", "graph.writes.guild_reset")
# what a command that opens the store needs (the driver imports numpy for its own use), never a command's start
THE_STORE = ("neo4j", "numpy", "graph.store", "graph.session", "graph.models")
THE_SETTINGS = ("pydantic", "pydantic_settings", "common.settings")
ONLY_SOME_WORK = ("rich.progress", "ingest.ingestor", "recall.gather", "llm.client")
# A fresh interpreter runs `grapevine ARGS` as the console script does; `loaded` is what it imported, whatever
# the command's exit code.
RUN = """
import json, runpy, sys
args, loaded, watched = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
sys.argv = ["grapevine", *json.loads(args)]
try:
    runpy.run_module("grapevine", run_name="__main__", alter_sys=True)
finally:
    with open(loaded, "w") as file:
        json.dump([name for name in watched if name in sys.modules], file)
"""


def _grapevine(tmp_path: Path, watched: tuple[str, ...], *args: str) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPEVINE_", "ARCADEDB_", "NEO4J_", "LLM_"))}
    env |= {"GRAPEVINE_DATA_DIR": str(tmp_path / "data"), "COLUMNS": "200"}
    loaded = tmp_path / "loaded.json"
    done = subprocess.run(
        [sys.executable, "-c", RUN, json.dumps(args), str(loaded), json.dumps(watched)],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    return done, json.loads(loaded.read_text())


def test_the_cli_starts_without_what_only_some_commands_need() -> None:
    watched = [*ONLY_SOME_COMMANDS, *THE_STORE, *THE_SETTINGS, *ONLY_SOME_WORK]
    code = f"import sys, json, grapevine.cli; print(json.dumps([m for m in {watched!r} if m in sys.modules]))"
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


def test_help_lists_every_command_without_the_store_or_the_settings(tmp_path: Path) -> None:
    done, loaded = _grapevine(tmp_path, (*THE_STORE, *THE_SETTINGS, *ONLY_SOME_WORK), "--help")
    assert done.returncode == 0, done.stderr
    for command in ("demo", "stats", "serve-db", "import", "ingest", "facts", "members", "doctor", "explore", "mcp"):
        assert f" {command} " in done.stdout, done.stdout
    assert "Run only the embedded ArcadeDB engine" in done.stdout, done.stdout
    assert loaded == []


def test_serve_db_stop_with_nothing_serving_runs_without_the_driver(tmp_path: Path) -> None:
    done, loaded = _grapevine(tmp_path, (*THE_STORE, *ONLY_SOME_WORK), "serve-db", "--stop")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"no engine serves {tmp_path / 'data'}", done.stdout
    assert loaded == []
