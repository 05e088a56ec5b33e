"""Forget-me reaches the engine's files: after `grapevine forget USER --yes` of the busiest member of a real
chat export, a raw search of the whole data directory (as `grep -a` does) finds none of their id, names,
message ids, or the words only they wrote: with the engine stopped (each command runs its own), and with the
engine the first command left in the background still serving (its write-ahead log kept what it wrote until
the purge deleted it). The same search before the forget finds them, so the search itself is shown to work.

The export is the sample's last 300 messages (of 1,223): its annotated part, where the member's messages meet
replies to them, mentions of them, an edit and an attachment, every shape the claim is about; the rest of the
sample only adds more of the same to write, purge and search."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from common.text import content_words
from tests.faults.test_cli_faults import grapevine
from tests.support.dce_builder import export_from_irc
from tests.support.ports import free_port

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO.parent / "shared" / "data" / "irc" / "dev" / "2005-06-27_12.raw.txt"


TAIL = 300
_WORD = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
# The engine keeps every property name and label in a dictionary file: one that is also a word (`since`, `name`) is
# on disk whoever said it, so it proves nothing about a member's words.
_NAMED = re.compile(r"\.(\w+)|:\s*`?(\w+)|(\w+)\s*:")  # n.prop, (n:Label), [:TYPE], {key: value}
VOCABULARY = frozenset(
    name.casefold()
    for path in (REPO / "queries").rglob("*.cypher")
    for line in path.read_text(encoding="utf-8").splitlines()
    for found in _NAMED.findall(line.split("//")[0])
    for name in found
    if name
)


def sample_export(path: Path, messages: int) -> list[dict[str, Any]]:
    """The shared IRC sample as an export of its last `messages` messages; returns its chat messages."""
    export_from_irc(SAMPLE, path)
    data = json.loads(path.read_text())
    data["messages"] = data["messages"][-messages:]
    data["messageCount"] = len(data["messages"])
    path.write_text(json.dumps(data))
    return [m for m in data["messages"] if m["type"] in ("Default", "Reply")]


def _occurs(text: str, needle: str, *, left: bool) -> bool:
    """Whether `needle` occurs in `text` with no letter or digit right after it, nor (`left`) right before it.
    A plain search, then a check of each hit: a regular expression that starts with a lookbehind has no literal
    to look for first and tries every position of the text, some twenty times slower over a data directory."""
    at = text.find(needle)
    while at >= 0:
        end = at + len(needle)
        if not (left and at > 0 and text[at - 1] in _WORD) and not (end < len(text) and text[end] in _WORD):
            return True
        at = text.find(needle, at + 1)
    return False


def traces_found(data: Path, needles: list[str], *, keys: bool = False, plain: bool = False) -> dict[str, list[str]]:
    """Which needles occur in which files as a whole word, any case (as `grep -a -i -w` finds them); with
    `keys`, as a stored string of their own (the engine writes a short string after its length byte):
    a word of a few letters also turns up by chance in binary pages, e.g. the key "have" and a next byte "n"."""
    hits: dict[str, list[str]] = {}
    blobs = [(p, p.read_bytes().decode("latin-1").casefold()) for p in data.rglob("*") if p.is_file()]
    for needle in needles:
        raw = needle.casefold().encode().decode("latin-1")
        if keys:
            where = [p for p, text in blobs if _occurs(text, chr(len(needle.encode())) + raw, left=False)]
        elif plain:
            where = [p for p, text in blobs if raw in text]
        else:
            where = [p for p, text in blobs if _occurs(text, raw, left=True)]
        if where:
            hits[needle] = [str(p.relative_to(data)) for p in where]
    return hits


@pytest.fixture(params=["0", "15"], ids=["engine-stopped", "engine-serving"])
def engine_env(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, str]]:
    """Commands that each run their own engine (ENGINE_IDLE_MINUTES=0), or join the one the first left serving,
    which is stopped at the end."""
    env = {"GRAPEVINE_DATA_DIR": str(tmp_path / "data"), "ARCADEDB_BOLT_PORT": str(free_port()),
           "ARCADEDB_HTTP_PORT": str(free_port()), "ENGINE_IDLE_MINUTES": request.param}  # fmt: skip
    yield env
    grapevine(tmp_path, "serve-db", "--stop", **env)


def test_forget_leaves_nothing_of_the_busiest_member_in_the_data_directory(tmp_path: Path, engine_env: dict[str, str]) -> None:
    export = tmp_path / "talk.json"
    messages = sample_export(export, TAIL)
    busiest_id, _ = Counter(m["author"]["id"] for m in messages if not m["author"]["isBot"]).most_common(1)[0]
    theirs = [m for m in messages if m["author"]["id"] == busiest_id]
    ids = {m["id"] for m in theirs}
    others = [m for m in messages if m["author"]["id"] != busiest_id]
    assert any(m.get("reference", {}).get("messageId") in ids for m in others)  # the shapes the claim covers
    assert any(busiest_id in {u["id"] for u in m["mentions"]} for m in others)
    assert any(m["timestampEdited"] for m in theirs) and any(m["attachments"] for m in theirs)
    author = theirs[0]["author"]
    names = sorted({author["name"], author.get("nickname") or author["name"]})
    others_words = {w for m in others for w in re.findall(r"\w+", m["content"].casefold())}
    others_words |= {
        w for m in others for n in (m["author"]["name"], m["author"].get("nickname") or "") for w in content_words(n)
    }
    # plain words of 5 letters or more, as the full-text index keeps them ("haven't" and URLs are other keys)
    plain = re.compile(r"(?<![\w'./:@-])[a-z]{5,40}(?![\w'./:@-])")
    only_theirs = sorted({w for m in theirs for w in plain.findall(m["content"].casefold())} - others_words - VOCABULARY)
    assert len(only_theirs) >= 5, only_theirs
    sentences = sorted({m["content"] for m in theirs if len(m["content"]) >= 20})
    needles = [busiest_id, *names, *(m["id"] for m in theirs)]

    data, env = tmp_path / "data", engine_env
    done = grapevine(tmp_path, "import", str(export), **env)
    assert done.returncode == 0, done.stderr
    stored = data / "arcadedb" / "databases"  # the engine's own logs hold its vocabulary ("build", ...), not ours
    before = (
        traces_found(data, needles) | traces_found(stored, only_theirs, keys=True) | traces_found(data, sentences, plain=True)
    )
    assert {busiest_id, *names, *only_theirs, *sentences} <= set(before), before  # the search finds what is there

    done = grapevine(tmp_path, "forget", busiest_id, "--yes", **env)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "residue audit: 0 nodes" in done.stdout, done.stdout
    assert traces_found(data, needles) == {}
    assert traces_found(stored, only_theirs, keys=True) == {}
    assert traces_found(data, sentences, plain=True) == {}
    assert grapevine(tmp_path, "stats", **env).returncode == 0  # the rebuilt indexes serve the next command
