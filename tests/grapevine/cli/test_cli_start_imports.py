"""Every command pays for what the CLI imports as it starts: what only some commands need (looking a name up,
the demo's start-over) is imported by those commands, when they run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
ONLY_SOME_COMMANDS = ("graph.reads.names", "graph.reads.operator", "graph.writes.guild_reset")


def test_the_cli_starts_without_what_only_some_commands_need() -> None:
    code = f"import sys, json, grapevine.cli; print(json.dumps([m for m in {list(ONLY_SOME_COMMANDS)!r} if m in sys.modules]))"
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []
