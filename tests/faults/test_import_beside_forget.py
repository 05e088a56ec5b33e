"""`grapevine forget` while `grapevine import` writes, two processes on one engine: the forget's purge (indexes
rebuilt, the database closed and opened again) waits for the import's writes and they for it
(graph.session.WriteGate, shared through the data directory): both exit 0 and every imported message is stored."""

from __future__ import annotations

import asyncio
import copy
import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from graph.store import GraphStore
from tests.support.cli_process import cli_env, grapevine
from tests.support.demo_sample import EXAMPLES

BOB = "602779366195331079"
BIG_CHANNEL = "833055715491979999"
MESSAGES = 4000


def _big_export(path: Path) -> None:
    """The sample's #general as a channel of its own with MESSAGES messages by its members other than Bob."""
    sample = json.loads((EXAMPLES / "discord-export" / "general.json").read_text(encoding="utf-8"))
    authors = [m["author"] for m in sample["messages"] if m["author"]["id"] != BOB and not m["author"]["isBot"]]
    template = {k: v for k, v in sample["messages"][0].items() if k != "reference"} | {"type": "Default"}
    t0 = datetime(2024, 7, 1, tzinfo=UTC)
    messages = []
    for i in range(MESSAGES):
        message = copy.deepcopy(template)
        at = t0 + timedelta(seconds=20 * i)
        message |= {"id": str(1300000000000000000 + i), "timestamp": at.isoformat(), "content": f"trail talk {i}"}
        message["author"] = authors[i % len(authors)]
        messages.append(message)
    export = sample | {"channel": sample["channel"] | {"id": BIG_CHANNEL, "name": "trail-talk"}, "messages": messages}
    path.write_text(json.dumps(export | {"messageCount": MESSAGES}), encoding="utf-8")


async def test_an_import_and_a_forget_at_once_both_finish_and_lose_nothing(store: GraphStore, tmp_path: Path) -> None:
    if store.engine.name != "arcadedb":
        pytest.skip("Neo4j's purge does nothing under its writers")
    sample = sorted(str(p) for p in (EXAMPLES / "discord-export").glob("*.json"))
    first = await grapevine(store, tmp_path, "import", *sample)
    assert first.returncode == 0, first.stdout + first.stderr
    big = tmp_path / "trail-talk.json"
    _big_export(big)
    importing = subprocess.Popen(  # noqa: ASYNC220 - started, then waited for off the loop
        [sys.executable, "-m", "grapevine", "import", str(big)], env=cli_env(store, tmp_path), cwd=tmp_path,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    await asyncio.sleep(3)  # its messages are being written
    forgot = await grapevine(store, tmp_path, "forget", BOB, "--yes")
    out, err = await asyncio.to_thread(importing.communicate, timeout=600)
    assert forgot.returncode == 0, forgot.stdout + forgot.stderr
    assert importing.returncode == 0, out + err
    records, _, _ = await store.driver.execute_query(
        "MATCH (m:Message {channel_id: $c}) RETURN count(m) AS n", {"c": BIG_CHANNEL}, database_=store.engine.database
    )
    assert records[0]["n"] == MESSAGES
