"""`grapevine stats` says how many windows wait for extraction, per guild (pending, failed to be retried, failed for
good), and the hint that says why a window failed runs as given."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from common.settings import ExtractionSettings
from graph.models import EpisodeStatus
from graph.reads.backlog import episodes_by_status
from graph.store import GraphStore
from graph.writes.episodes import mark_episode
from tests.support.cli_process import grapevine

GUILD = "833055463833731073"
SAMPLE = Path(__file__).resolve().parents[3] / "examples" / "discord-export"


async def test_stats_counts_the_windows_that_wait_and_the_hint_runs_as_given(store: GraphStore, tmp_path: Path) -> None:
    imported = await grapevine(store, tmp_path, "import", *(str(p) for p in sorted(SAMPLE.glob("*.json"))))
    assert imported.returncode == 0, imported.stderr  # no LLM: every window waits, pending
    waiting = await episodes_by_status(store, [EpisodeStatus.PENDING], guild_id=GUILD, limit=100)
    assert len(waiting) == 8
    await mark_episode(store, waiting[0].key, EpisodeStatus.FAILED, "UnusableAnswer: no", attempt=True)
    for _ in range(ExtractionSettings().max_attempts):
        await mark_episode(store, waiting[1].key, EpisodeStatus.FAILED, "UnusableAnswer: no", attempt=True)

    stats = await grapevine(store, tmp_path, "stats")
    assert stats.returncode == 0, stats.stderr
    said = stats.stdout
    assert "windows waiting for extraction" in said, said
    table = said[said.index("windows waiting for extraction") :]
    row = next(line for line in table.splitlines() if GUILD in line)
    assert [cell.strip() for cell in row.strip("│ ").split("│")] == [GUILD, "6", "1", "1"], row

    facts = await grapevine(store, tmp_path, "facts", "--guild", GUILD, "--user", "Bob")
    hint = re.search(r"`(grapevine query windows_by_status[^`]*)`", " ".join((facts.stdout + facts.stderr).split()))
    assert hint, facts.stdout + facts.stderr
    argv = shlex.split(hint[1])[1:]
    reasons = await grapevine(store, tmp_path, *argv, "--json")
    assert reasons.returncode == 0, reasons.stderr
    assert reasons.stdout.count('"status": "failed"') == 2, reasons.stdout
