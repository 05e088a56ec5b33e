"""The real `grapevine` CLI as a second process of the same deployment, joined to a test's ArcadeDB server."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

from graph.store import GraphStore


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
