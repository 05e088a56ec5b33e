"""The command line's own answers, as the docs promise them: a usage error is one line (exit 2) that says what was
wrong and where the options are listed, never a box of five; `--help` shows each flag as a flag (typer labelled
every one `<bool>`) and a count as a number."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def _grapevine(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPEVINE_", "ARCADEDB_", "LLM_", "DISCORD_"))}
    env |= {"GRAPEVINE_DATA_DIR": str(tmp_path / "data"), "COLUMNS": "100"}
    return subprocess.run([sys.executable, "-m", "grapevine", *args], env=env, cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)  # fmt: skip


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["facts", "--guild", "833055463833731073", "--bogus"], "No such option: --bogus"),
        (["facts"], "Missing option '--guild'"),
        (["ingest"], "say what to ingest: --pending"),
        (["facts", "--guild", "833055463833731073"], "give exactly one of --user or --entity"),
        (["channels", "--guild", "833055463833731073", "--set", "general"], "give --set and --mode together"),
        (["nosuchcommand"], "No such command 'nosuchcommand'"),
    ],
)
def test_a_usage_error_is_one_line(tmp_path: Path, args: list[str], says: str) -> None:
    done = _grapevine(tmp_path, *args)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2, done.stdout + done.stderr
    assert len(lines) == 1 and says in lines[0] and "--help" in lines[0], done.stderr
    assert not (tmp_path / "data").exists()


def test_help_shows_flags_as_flags_and_a_count_as_a_number(tmp_path: Path) -> None:
    facts = _grapevine(tmp_path, "facts", "--help")
    assert facts.returncode == 0 and "--history" in facts.stdout and "--json" in facts.stdout, facts.stdout
    assert "<bool>" not in facts.stdout, facts.stdout
    knows = _grapevine(tmp_path, "who-knows", "--help")
    limit = next(line for line in knows.stdout.splitlines() if "--limit" in line)
    assert "<int>" in limit, knows.stdout
