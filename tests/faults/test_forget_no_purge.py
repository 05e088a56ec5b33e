"""`grapevine forget --no-purge` leaves the engine's files to a later purge and says so; `grapevine stats`
shows the erasure waiting until `grapevine retention --apply` (as the bot's upkeep pass does) purges it."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from tests.faults.test_cli_faults import grapevine
from tests.faults.test_erasure_on_disk import SAMPLE
from tests.support.dce_builder import export_from_irc
from tests.support.ports import free_port


def test_a_forget_without_purge_waits_for_the_next_purge(tmp_path: Path) -> None:
    export = tmp_path / "talk.json"
    export_from_irc(SAMPLE, export)
    messages = [m for m in json.loads(export.read_text())["messages"] if m["type"] in ("Default", "Reply")]
    member, _ = Counter(m["author"]["id"] for m in messages if not m["author"]["isBot"]).most_common(1)[0]
    env = {
        "GRAPEVINE_DATA_DIR": str(tmp_path / "data"),
        "ARCADEDB_BOLT_PORT": str(free_port()),
        "ARCADEDB_HTTP_PORT": str(free_port()),
    }
    assert grapevine(tmp_path, "import", str(export), **env).returncode == 0

    done = grapevine(tmp_path, "forget", member, "--yes", "--no-purge", **env)
    assert done.returncode == 0, done.stdout + done.stderr
    said = " ".join(done.stdout.split())  # the console wraps at 80 columns
    assert "the bot's next upkeep pass purges them" in said and "residue audit: 0 nodes" in said, said
    waiting = grapevine(tmp_path, "stats", **env)
    assert "1 erasures since" in " ".join(waiting.stdout.split()), waiting.stdout

    purged = grapevine(tmp_path, "retention", "--apply", **env)
    assert purged.returncode == 0 and "engine files purged" in " ".join(purged.stdout.split()), purged.stdout
    after = grapevine(tmp_path, "stats", **env)
    shown = " ".join(after.stdout.split())
    assert after.returncode == 0 and "erasures since" not in shown
    assert "Retention: messages kept forever, closed facts kept forever" in shown, shown
