"""Retention reaches the engine's files: a real chat export whose first half is years old and second half
from yesterday is imported; `grapevine retention --apply` with MEMORY_RETAIN_MESSAGES_DAYS=30 removes the
old half, and with the engine stopped a raw search of the data directory (as `grep -a` does) finds none of
the old messages' sentences, ids or the words only they held, while the same search still finds the kept
half's sentences (and found the old half's before).

The export is the sample's last 150 messages: replies that cross from the kept half to the removed one, edits
and attachments on either side, and more than 20 chat messages in each half; more messages only add more of the
same to write, purge and search."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tests.faults.test_cli_faults import grapevine
from tests.faults.test_erasure_on_disk import VOCABULARY, sample_export, traces_found
from tests.support.ports import free_port

MESSAGES = 150


def _recent_second_half(export: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    data = json.loads(export.read_text())
    messages = data["messages"]
    half = len(messages) // 2
    shift = datetime.now(UTC) - timedelta(days=1) - datetime.fromisoformat(messages[half]["timestamp"])
    for m in messages[half:]:
        for key in ("timestamp", "timestampEdited"):
            if m.get(key):
                m[key] = (datetime.fromisoformat(m[key]) + shift).isoformat(timespec="milliseconds")
    export.write_text(json.dumps(data))
    chat = [m for m in messages if m["type"] in ("Default", "Reply")]
    cut = messages[half]["timestamp"]
    return [m for m in chat if m["timestamp"] < cut], [m for m in chat if m["timestamp"] >= cut]


def test_retention_leaves_nothing_of_old_messages_in_the_data_directory(tmp_path: Path) -> None:
    export = tmp_path / "talk.json"
    sample_export(export, MESSAGES)
    old, new = _recent_second_half(export)
    assert len(old) >= 20 and len(new) >= 20
    old_ids = [m["id"] for m in old]
    assert any(m.get("reference", {}).get("messageId") in old_ids for m in new)  # the shapes the claim covers
    assert any(m["timestampEdited"] for m in old) and any(m["timestampEdited"] for m in new)
    assert any(m["attachments"] for m in old) and any(m["attachments"] for m in new)
    new_words = {w for m in new for w in re.findall(r"\w+", m["content"].casefold())}
    new_words |= {
        w
        for m in new + old
        for w in re.findall(r"\w+", (m["author"]["name"] + " " + (m["author"].get("nickname") or "")).casefold())
    }
    plain = re.compile(r"(?<![\w'./:@-])[a-z]{5,40}(?![\w'./:@-])")  # as the full-text index keeps them
    only_old = sorted({w for m in old for w in plain.findall(m["content"].casefold())} - new_words - VOCABULARY)
    assert len(only_old) >= 5, only_old
    old_sentences = sorted({m["content"] for m in old if len(m["content"]) >= 20})
    new_sentences = sorted({m["content"] for m in new if len(m["content"]) >= 20} - set(old_sentences))
    assert old_sentences and new_sentences

    data = tmp_path / "data"
    env = {"GRAPEVINE_DATA_DIR": str(data), "ARCADEDB_BOLT_PORT": str(free_port()), "ARCADEDB_HTTP_PORT": str(free_port())}
    assert grapevine(tmp_path, "import", str(export), **env).returncode == 0
    stored = data / "arcadedb" / "databases"
    before = (
        traces_found(data, old_ids) | traces_found(stored, only_old, keys=True) | traces_found(data, old_sentences, plain=True)
    )
    assert {*old_ids, *only_old, *old_sentences} <= set(before), before  # the search finds what is there

    shown = grapevine(tmp_path, "retention", **env, MEMORY_RETAIN_MESSAGES_DAYS="30")
    assert "messages kept 30 days, closed facts kept forever" in " ".join(shown.stdout.split()), shown.stdout
    done = grapevine(tmp_path, "retention", "--apply", **env, MEMORY_RETAIN_MESSAGES_DAYS="30")

    assert done.returncode == 0, done.stdout + done.stderr
    said = " ".join(done.stdout.split())  # the console wraps at 80 columns
    assert f"removed {len(old)} messages" in said and "engine files purged" in said, said
    assert traces_found(data, old_ids) == {}
    assert traces_found(stored, only_old, keys=True) == {}
    assert traces_found(data, old_sentences, plain=True) == {}
    assert set(traces_found(data, new_sentences, plain=True)) == set(new_sentences)  # the kept half is all there
    stats = grapevine(tmp_path, "stats", **env, MEMORY_RETAIN_MESSAGES_DAYS="30")
    assert stats.returncode == 0 and "Retention: messages kept 30 days" in " ".join(stats.stdout.split()), stats.stdout
