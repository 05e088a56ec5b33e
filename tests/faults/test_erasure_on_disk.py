"""Forget-me reaches the engine's files: after `grapevine forget USER --yes` of the busiest member of a real
chat export, with the engine stopped, a raw search of the whole data directory (as `grep -a` does) finds
none of their id, names, message ids, or the words only they wrote. The same search before the forget
finds them, so the search itself is shown to work."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from common.text import content_words
from tests.faults.test_cli_faults import grapevine
from tests.support.dce_builder import export_from_irc
from tests.support.ports import free_port

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO.parent / "shared" / "data" / "irc" / "dev" / "2005-06-27_12.raw.txt"


def _found(data: Path, needles: list[str], *, keys: bool = False, plain: bool = False) -> dict[str, list[str]]:
    """Which needles occur in which files as a whole word, any case (as `grep -a -i -w` finds them); with
    `keys`, as a stored string of their own (the engine writes a short string after its length byte):
    a word of a few letters also turns up by chance in binary pages, e.g. the key "have" and a next byte "n"."""
    hits: dict[str, list[str]] = {}
    blobs = [(p, p.read_bytes().decode("latin-1").casefold()) for p in data.rglob("*") if p.is_file()]
    for needle in needles:
        raw = needle.casefold().encode().decode("latin-1")
        prefix = re.escape(chr(len(needle.encode()))) if keys else "" if plain else r"(?<![a-z0-9])"
        pattern = re.compile(rf"{prefix}{re.escape(raw)}" + ("" if plain else "(?![a-z0-9])"))
        where = [str(p.relative_to(data)) for p, text in blobs if pattern.search(text)]
        if where:
            hits[needle] = where
    return hits


def test_forget_leaves_nothing_of_the_busiest_member_in_the_data_directory(tmp_path: Path) -> None:
    export = tmp_path / "talk.json"
    export_from_irc(SAMPLE, export)
    messages = [m for m in json.loads(export.read_text())["messages"] if m["type"] in ("Default", "Reply")]
    busiest_id, _ = Counter(m["author"]["id"] for m in messages if not m["author"]["isBot"]).most_common(1)[0]
    theirs = [m for m in messages if m["author"]["id"] == busiest_id]
    author = theirs[0]["author"]
    names = sorted({author["name"], author.get("nickname") or author["name"]})
    others = [m for m in messages if m["author"]["id"] != busiest_id]
    others_words = {w for m in others for w in re.findall(r"\w+", m["content"].casefold())}
    others_words |= {
        w for m in others for n in (m["author"]["name"], m["author"].get("nickname") or "") for w in content_words(n)
    }
    # plain words of 5 letters or more, as the full-text index keeps them ("haven't" and URLs are other keys)
    plain = re.compile(r"(?<![\w'./:@-])[a-z]{5,40}(?![\w'./:@-])")
    only_theirs = sorted({w for m in theirs for w in plain.findall(m["content"].casefold())} - others_words)
    assert len(only_theirs) >= 5, only_theirs
    sentences = sorted({m["content"] for m in theirs if len(m["content"]) >= 20})
    needles = [busiest_id, *names, *(m["id"] for m in theirs)]

    data = tmp_path / "data"
    env = {"GRAPEVINE_DATA_DIR": str(data), "ARCADEDB_BOLT_PORT": str(free_port()), "ARCADEDB_HTTP_PORT": str(free_port())}
    done = grapevine(tmp_path, "import", str(export), **env)
    assert done.returncode == 0, done.stderr
    stored = data / "arcadedb" / "databases"  # the engine's own logs hold its vocabulary ("build", ...), not ours
    before = _found(data, needles) | _found(stored, only_theirs, keys=True) | _found(data, sentences, plain=True)
    assert {busiest_id, *names, *only_theirs, *sentences} <= set(before), before  # the search finds what is there

    done = grapevine(tmp_path, "forget", busiest_id, "--yes", **env)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "residue audit: 0 nodes" in done.stdout, done.stdout
    assert _found(data, needles) == {}
    assert _found(stored, only_theirs, keys=True) == {}
    assert _found(data, sentences, plain=True) == {}
    assert grapevine(tmp_path, "stats", **env).returncode == 0  # the rebuilt indexes serve the next command
