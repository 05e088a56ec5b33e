"""`grapevine import` says what of a file it did not store and why, and its progress counts every message."""

from __future__ import annotations

import json
from pathlib import Path

from graph.store import GraphStore
from tests.support.cli_process import grapevine

GUILD, CHANNEL, AUTHOR = "800000000000000071", "810000000000000071", "330000000000000071"


def _message(n: int, kind: str, text: str) -> dict[str, object]:
    return {"id": f"9710000000000{n:05d}", "type": kind, "timestamp": f"2024-03-01T12:0{n}:00+00:00", "content": text,
            "author": {"id": AUTHOR, "name": "zorro"}}  # fmt: skip


async def test_import_counts_the_system_message_it_leaves_out(store: GraphStore, tmp_path: Path) -> None:
    messages = [_message(1, "Default", "anyone around"), _message(2, "Call", ""), _message(3, "Default", "guess not")]
    doc = {"guild": {"id": GUILD, "name": "g"}, "channel": {"id": CHANNEL, "name": "general"}, "messages": messages}
    path = tmp_path / "call.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    done = await grapevine(store, tmp_path, "import", str(path))
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stdout.split())
    assert "call.json: 1 message not stored: 1 system message (Call)" in said, said
    assert "messages 3/3" in said, said
