"""Real chat, erased from outside: the shared IRC samples imported as channels of two guilds with shared members
(members answering themselves, chains, a member in both guilds), then `grapevine forget` of each of the ten
busiest members, then `grapevine retention --apply` at 30 days: every command exits 0 and every audit is clean,
and nothing of the forgotten members is left."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graph.store import GraphStore
from tests.support.cli_process import grapevine
from tests.support.datasets import DATA_DIR
from tests.support.irc_guilds import import_all, write_exports

pytestmark = pytest.mark.slow

SAMPLES = DATA_DIR / "irc" / "dev"
LAST = 400  # messages per channel: the samples' annotated tails, where their replies are, 13 channels of 5,200


def _self_replies(paths: list[Path], members: set[str]) -> int:
    """Replies of these members to their own messages in the exports (the shape that once stopped a forget)."""
    found = 0
    for path in paths:
        messages = json.loads(path.read_text(encoding="utf-8"))["messages"]
        author = {m["id"]: m["author"]["id"] for m in messages}
        found += sum(
            1
            for m in messages
            if m["author"]["id"] in members and author.get((m.get("reference") or {}).get("messageId")) == m["author"]["id"]
        )
    return found


@pytest.mark.skipif(not SAMPLES.is_dir(), reason=f"the shared IRC samples are not at {SAMPLES}")
@pytest.mark.parametrize("store", ["arcadedb"], indirect=True)
async def test_forget_the_ten_busiest_then_retention_on_real_chat(store: GraphStore, tmp_path: Path) -> None:
    imported = await import_all(store, write_exports(tmp_path / "exports", last=LAST))
    assert imported.messages > 4_000
    busiest = [uid for (uid, _), _ in imported.authors.most_common(10)]
    assert len(set(busiest)) == 10
    assert _self_replies(imported.paths, set(busiest)) > 100
    guilds: dict[str, set[str]] = {}
    for path in imported.paths:
        document = json.loads(path.read_text(encoding="utf-8"))
        for m in document["messages"]:
            guilds.setdefault(m["author"]["id"], set()).add(document["guild"]["id"])
    assert sum(len(guilds[m]) == 2 for m in busiest) >= 3  # members of both guilds among them

    for member in busiest:
        done = await grapevine(store, tmp_path, "forget", member, "--yes", "--no-purge")
        assert done.returncode == 0, done.stdout + done.stderr
        assert "residue audit: 0 nodes" in done.stdout and "Traceback" not in done.stderr, done.stdout + done.stderr

    kept = await grapevine(store, tmp_path, "retention", "--apply", env={"MEMORY_RETAIN_MESSAGES_DAYS": "30"})
    assert kept.returncode == 0, kept.stdout + kept.stderr
    assert "removed" in kept.stdout and "engine files purged" in kept.stdout, kept.stdout
    left = await store.driver.execute_query(
        "MATCH (n) WHERE any(k IN keys(n) WHERE any(id IN $ids WHERE coalesce(toStringOrNull(n[k]), '') CONTAINS id)) "
        "RETURN count(n) AS n",
        {"ids": busiest},
        database_=store.engine.database,
    )
    assert left.records[0]["n"] == 0
    messages = await store.driver.execute_query("MATCH (m:Message) RETURN count(m) AS n", database_=store.engine.database)
    assert messages.records[0]["n"] == 0  # every sample is years old
    assert not (tmp_path / "cli-data" / "unfinished_forgets.jsonl").exists()  # every request finished
