"""`grapevine import` stopped by Ctrl-C says in one line what it did (files imported, where the one under way was)
and that the same import finishes it; exit 130, no traceback."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from graph.store import GraphStore
from tests.support.cli_process import cli_env, ctrl_c_at_the_third_call
from tests.support.scripted import answer

SAMPLE = Path(__file__).resolve().parents[3] / "examples" / "discord-export"


async def test_ctrl_c_stops_an_import_with_a_one_line_summary_and_exit_130(store: GraphStore, tmp_path: Path) -> None:
    await asyncio.to_thread(_interrupted, cli_env(store, tmp_path), tmp_path)


def _interrupted(base: dict[str, str], tmp_path: Path) -> None:
    files = [str(p) for p in sorted(SAMPLE.glob("*.json"))]
    returncode, stdout, stderr = ctrl_c_at_the_third_call(
        base, tmp_path, ["import", *files], lambda r: answer("They planned a hike.")
    )
    assert returncode == 130, stdout + stderr
    assert "Traceback" not in stdout + stderr, stderr
    said = [line for line in stderr.splitlines() if line.strip()]
    assert len(said) == 1, stderr
    assert re.fullmatch(
        r"import: stopped by Ctrl-C: 0 of 2 files imported; in general\.json: windows 2 settled \(2 done, 0 failed\) in "
        r"\d+:\d\d:\d\d, \d+ LLM calls; what was stored stays, and the same `grapevine import` again finishes it "
        r"\(nothing is added twice\)",
        said[0],
    ), said[0]
