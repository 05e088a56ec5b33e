"""The real `grapevine` command in a process of its own, started the way an operator's shell starts it: with the
common umask 022, so whatever it makes private it makes private itself."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

SHELL_UMASK = 0o022
REPO = Path(__file__).resolve().parents[2]


def grapevine(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`grapevine` in `cwd`, running this checkout's code (the virtualenv may hold another one)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPEVINE_", "NEO4J_", "ARCADEDB_", "LLM_", "DISCORD_"))}
    path = os.pathsep.join(p for p in (str(REPO), clean.get("PYTHONPATH", "")) if p)
    return subprocess.run([sys.executable, "-m", "grapevine", *args], env={**clean, **env, "COLUMNS": "200", "PYTHONPATH": path},
                          capture_output=True, text=True, timeout=300, cwd=cwd, umask=SHELL_UMASK)  # fmt: skip


@contextlib.contextmanager
def shell_umask() -> Iterator[None]:
    """This process's umask set to the common 022 for the block (what a library caller of grapevine has)."""
    before = os.umask(SHELL_UMASK)
    try:
        yield
    finally:
        os.umask(before)


def mode(path: Path) -> int:
    return path.stat().st_mode & 0o777
