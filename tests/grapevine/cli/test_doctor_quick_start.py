"""`grapevine doctor` in the quick start that needs no LLM and no Discord: what it does not need is a note that
says what needs it, not a ✗, and doctor exits 0 when what is set works; it checks embeddings and a `.env` that
other users can read (it holds the token and the keys)."""

from __future__ import annotations

import os
from pathlib import Path

from graph.store import GraphStore
from tests.support.cli_process import grapevine


async def test_the_quick_starts_doctor_has_notes_not_faults(store: GraphStore, tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("LOG_CONTENT=false\n", encoding="utf-8")
    os.chmod(env_file, 0o600)
    done = await grapevine(store, tmp_path, "doctor")
    said = done.stdout + done.stderr
    assert done.returncode == 0, said
    assert "✗" not in said and "Traceback" not in said, said
    flat = " ".join(said.split())
    assert "DISCORD_TOKEN not set: needed for `run`" in flat, said
    assert "LLM_BASE_URL not set: needed for `run`" in flat, said
    assert "embeddings off (EMBEDDINGS_MODEL not set)" in flat, said
    assert "all good" in flat, said

    os.chmod(env_file, 0o644)  # as `cp .env.example .env` leaves it under a usual umask
    shared = await grapevine(store, tmp_path, "doctor")
    assert shared.returncode == 1, shared.stdout + shared.stderr
    assert f"chmod 600 {env_file}" in " ".join(shared.stderr.split()), shared.stderr
