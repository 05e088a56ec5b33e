"""`grapevine demo` imports the shipped sample with its recorded extraction answers replayed (no LLM): `facts`,
`who-knows` and `timeline` then show the sample's facts, a later window's fact closing an earlier one's (Bob
moves from Berlin to Munich), and running it again adds nothing. A sample whose windows changed since the
answers were written is named window by window, exit 1."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from graph.store import GraphStore
from tests.support.cli_process import grapevine

GUILD = "833055463833731073"
BOB = "602779366195331079"
SAMPLE = Path(__file__).resolve().parents[3] / "examples" / "discord-export"


def _rows(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


async def test_the_demo_shows_the_samples_facts_in_facts_and_who_knows(store: GraphStore, tmp_path: Path) -> None:
    done = await grapevine(store, tmp_path, "demo")
    said = " ".join(done.stdout.split())
    assert done.returncode == 0, done.stdout + done.stderr
    assert "replayed answers:" in said and "no LLM is called" in said, said
    assert "8 extraction answers replayed (0 not found)" in said, said
    assert f"python -m grapevine facts --guild {GUILD} --user Bob" in said  # the next step, as this test ran it

    facts = await grapevine(store, tmp_path, "facts", "--guild", GUILD, "--user", BOB, "--history", "--json")
    assert facts.returncode == 0, facts.stderr
    by_text = {row["text"]: row for row in _rows(facts.stdout)}
    assert by_text["Bob has moved to Berlin"]["invalid_at"] is not None  # closed by the later window
    assert by_text["Bob has moved to Berlin"]["superseded_by"] == "Bob has moved to Munich"  # by its text, as timeline
    assert by_text["Bob has moved to Munich"]["invalid_at"] is None
    assert "Bob" in by_text["Bob has moved to Munich"]["reported_by"]  # the display name the CLI uses

    knows = await grapevine(store, tmp_path, "who-knows", "Berlin", "--guild", GUILD, "--json")
    assert knows.returncode == 0, knows.stderr
    assert "Bob" in [row["member"] for row in _rows(knows.stdout)], knows.stdout

    timeline = await grapevine(store, tmp_path, "timeline", "--guild", GUILD, "--user", BOB, "--json")
    assert timeline.returncode == 0 and "Munich" in timeline.stdout, timeline.stdout + timeline.stderr

    again = await grapevine(store, tmp_path, "demo")
    assert again.returncode == 0, again.stderr
    assert "0 extraction answers replayed" in " ".join(again.stdout.split()), again.stdout  # every window is done
    facts_again = await grapevine(store, tmp_path, "facts", "--guild", GUILD, "--user", BOB, "--history", "--json")
    assert len(_rows(facts_again.stdout)) == len(by_text)


async def test_a_changed_sample_names_the_windows_without_an_answer(store: GraphStore, tmp_path: Path) -> None:
    changed = tmp_path / "sample"
    shutil.copytree(SAMPLE, changed)
    general = changed / "general.json"
    general.write_text(general.read_text(encoding="utf-8").replace("north parking lot", "south gate"), encoding="utf-8")
    done = await grapevine(store, tmp_path, "demo", "--sample", str(changed))
    assert done.returncode == 1, done.stdout + done.stderr
    said = " ".join(done.stderr.split())
    assert "no recorded answer for the window starting 2024-05-03 18:02 UTC Alice" in said, said
    assert said.count("no recorded answer for the window") == 1  # the other windows were answered
    assert "Traceback" not in done.stdout + done.stderr


async def test_facts_with_none_extracted_says_how_many_windows_wait_and_what_to_do(store: GraphStore, tmp_path: Path) -> None:
    imported = await grapevine(store, tmp_path, "import", *(str(p) for p in sorted(SAMPLE.glob("*.json"))))
    assert imported.returncode == 0, imported.stderr
    facts = await grapevine(store, tmp_path, "facts", "--guild", GUILD, "--user", BOB)
    said = " ".join(facts.stdout.split())
    assert facts.returncode == 0 and "0 facts: nothing found" in said, said
    assert "8 windows of this guild wait for extraction (8 pending, 0 failed)" in said, said
    assert "grapevine ingest --pending" in said
