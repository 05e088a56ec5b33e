"""Mutation runs shared by the machines' mutant lists (tests/support/scope_mutants.py, tests/support/erasure_mutants.py):
each planted bug is a literal source patch applied to a copy of the tree in a temporary folder, whose tests run
there (pytest imports the copy, which is checked), so the working tree is never changed, whatever happens."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

Patch = tuple[str, str, str]  # (file, the text found exactly `count` times, its replacement)


def copy_tree(into: Path) -> None:
    """The tracked files of this tree (changes not committed included), and the untracked ones git does not ignore."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT, check=True, capture_output=True
    ).stdout.split(b"\0")
    for name in filter(None, (n.decode() for n in listed)):
        source = ROOT / name
        if source.is_file():
            target = into / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def patched(tree: Path, name: str, patches: Sequence[Patch], count: int = 1) -> None:
    """Apply each patch to the copy; a patch whose text is not found `count` times stops the run (it no longer
    plants what its name says)."""
    for file, old, new in patches:
        path = tree / file
        text = path.read_text(encoding="utf-8")
        if text.count(old) != count:
            raise SystemExit(f"{name}: the patch of {file} no longer applies (found {text.count(old)} times): {old!r}")
        path.write_text(text.replace(old, new), encoding="utf-8")


def copy_env(tree: Path, **extra: str) -> dict[str, str]:
    """The environment the copy's tests run in: the copy first on the import path."""
    return dict(os.environ, PYTHONPATH=str(tree), **extra)


def check_imports_the_copy(tree: Path, env: dict[str, str]) -> None:
    found = subprocess.run(
        [sys.executable, "-c", "import graph.store; print(graph.store.__file__)"],
        cwd=tree, env=env, check=True, capture_output=True, text=True,
    )  # fmt: skip
    where = found.stdout.strip()
    if not where.startswith(str(tree)):
        raise SystemExit(f"the copy's tests import {where}, not the copy in {tree}")


def pytest_in(tree: Path, tests: Sequence[str], env: dict[str, str], *options: str) -> tuple[bool, float, str]:
    """Whether the tests passed in the copy, the seconds they took, and what pytest printed."""
    check_imports_the_copy(tree, env)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *options, *tests],
        cwd=tree, env=env, capture_output=True, text=True,
    )  # fmt: skip
    return done.returncode == 0, time.monotonic() - started, done.stdout + done.stderr


# --- mutants generated from the code ---------------------------------------------------------------------
@dataclass(frozen=True)
class Generated:
    """A bug of a usual kind planted by rule at one place of one file: `patch` replaces the whole file's text."""

    name: str
    kind: str
    patch: Patch


def _top_level(text: str, word: str) -> list[int]:
    """Where `word` occurs in `text` outside parentheses, brackets, braces and quotes."""
    found, depth, quote, i = [], 0, "", 0
    while i < len(text):
        ch = text[i]
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and text.startswith(word, i):
            found.append(i)
        i += 1
    return found


def _cypher_mutants(file: str, lines: list[str]) -> Iterator[tuple[str, str, list[str]]]:
    """(kind, where, the mutated lines) for each generated bug of a .cypher file."""
    for n, line in enumerate(lines):
        code = line.split("//")[0]
        if not code.strip():
            continue
        at = f"{file}:{n + 1}"
        where = _top_level(code, "WHERE ")
        if where:
            start = where[0] + len("WHERE ")
            body = code[start:].rstrip()
            cuts = [0, *(i + len(" AND ") for i in _top_level(body, " AND ")), len(body) + len(" AND ")]
            parts = [body[a : b - len(" AND ")] for a, b in zip(cuts, cuts[1:], strict=False)]
            for k in range(len(parts) if len(parts) > 1 else 0):
                kept = " AND ".join(p for j, p in enumerate(parts) if j != k)
                yield "a WHERE conjunct dropped", f"{at} (#{k + 1}: {parts[k].strip()[:60]})", [
                    *lines[:n], code[:start] + kept + "\n", *lines[n + 1 :]]  # fmt: skip
        if code.strip().startswith("AND ") and n and "WHERE" in "".join(lines[max(0, n - 3) : n]):
            yield "a WHERE conjunct dropped", f"{at} ({code.strip()[:60]})", [*lines[:n], *lines[n + 1 :]]
        for m in re.finditer(r"\b(toLower|toUpper)\(", code):
            inner, depth, i = m.end(), 1, m.end()
            while i < len(code) and depth:
                depth += {"(": 1, ")": -1}.get(code[i], 0)
                i += 1
            exact = code[: m.start()] + code[inner : i - 1] + code[i:]
            yield "a comparison made exact", f"{at} ({m.group(1)} removed)", [*lines[:n], exact, *lines[n + 1 :]]
        for m in re.finditer(r"\bany\(", code):
            yield "any made all", at, [*lines[:n], code[: m.start()] + "all(" + code[m.end() :], *lines[n + 1 :]]
        if re.match(r"\s*DELETE \w+\s*$", code):
            yield "an edge kept", f"{at} ({code.strip()})", [*lines[:n], *lines[n + 1 :]]
        if re.match(r"\s*MATCH \(\w+:\w+.*DETACH DELETE", code):
            label = re.match(r"\s*MATCH \(\w+:(\w+)", code)
            yield "a label skipped in a delete", f"{at} ({label.group(1) if label else ''})", [*lines[:n], *lines[n + 1 :]]


def _python_mutants(file: str, lines: list[str]) -> Iterator[tuple[str, str, list[str]]]:
    for n, line in enumerate(lines):
        code = line.split("#")[0]
        at = f"{file}:{n + 1}"
        for m in re.finditer(r"\.casefold\(\)|\.lower\(\)", code):
            yield "a comparison made exact", f"{at} ({m.group(0)} removed)", [
                *lines[:n], line[: m.start()] + line[m.end() :], *lines[n + 1 :]]  # fmt: skip
        for m in re.finditer(r'unicodedata\.normalize\("NFKC", (\w+)\)', code):
            yield "a comparison made exact", f"{at} (no normal form)", [
                *lines[:n], line[: m.start()] + m.group(1) + line[m.end() :], *lines[n + 1 :]]  # fmt: skip
        for m in re.finditer(r"\bany\(", code):
            yield "any made all", at, [*lines[:n], line[: m.start()] + "all(" + line[m.end() :], *lines[n + 1 :]]


SNOWFLAKES = (
    "Discord's ids are snowflakes, unique across all of Discord (https://discord.com/developers/docs/reference#snowflakes: "
    "only a child may share its parent's id, as a guild's @everyone role does): a channel, thread or episode matched by "
    "its channel id is of one guild, so no guild's second channel can answer for it; the member ids the machines share "
    "between guilds (a member in two guilds) are matched beside a guild everywhere they can collide"
)
EQUIVALENT = {  # generated mutants no machine can kill, by name with its line number left out: why
    "a WHERE conjunct dropped: queries/channels/set_visibility.cypher (#1: t.guild_id = $guild_id)": SNOWFLAKES,
    "a WHERE conjunct dropped: queries/context/conversation.cypher (#1: e.guild_id = $guild_id)": SNOWFLAKES,
    "a WHERE conjunct dropped: queries/erasure/channel_facts.cypher (#1: f.guild_id = $guild_id)": SNOWFLAKES
    + " (a fact's audience holds channel ids)",
    "a WHERE conjunct dropped: queries/erasure/channel_messages.cypher (#1: c.guild_id = $guild_id)": SNOWFLAKES,
    "a WHERE conjunct dropped: queries/channels/set_mode.cypher (#1: NOT hidden)": "implied by the conjunct after it: "
    "`hidden` means 'shared' asked of a channel stored restricted, and every thread of a restricted channel is stored "
    "restricted (set_visibility.cypher narrows them with it; a thread's visibility is its parent's, "
    "bot/listening/_channels.py), so `$mode <> 'shared' OR t.visibility = 'public'` is already false for each of them",
    "any made all: queries/erasure/channel_residue.cypher": "an audit of residue: with the erasure correct there is "
    "none to find, so `any` and `all` both find nothing; it fails only beside a second bug (the audit's unit test, "
    "tests/bot/memory/test_channel_scope.py, plants a fact whose audience is the erased thread alone, where `any` is "
    "`all`: a planted audience of the thread and another channel would kill it)",
}


def why_equivalent(name: str) -> str:
    """Why a generated mutant cannot be killed, when it is one of EQUIVALENT ('' when it must be)."""
    return EQUIVALENT.get(re.sub(r"(\.\w+):\d+", r"\1", name), "")


def tracked(*patterns: str) -> list[str]:
    """The files of this tree matching these glob patterns (relative to the root), sorted."""
    return sorted({str(p.relative_to(ROOT)) for pattern in patterns for p in ROOT.glob(pattern) if p.is_file()})


def generated(files: Sequence[str]) -> list[Generated]:
    """Every generated bug in these files (tracked .cypher and .py files of this tree)."""
    found: list[Generated] = []
    for file in files:
        text = (ROOT / file).read_text(encoding="utf-8")
        lines = text.splitlines(keepends=True)
        mutants = _cypher_mutants(file, lines) if file.endswith(".cypher") else _python_mutants(file, lines)
        for kind, where, mutated in mutants:
            new = "".join(mutated)
            if new != text:
                found.append(Generated(f"{kind}: {where}", kind, (file, text, new)))
    return found


def sample(mutants: Sequence[Generated], most: int) -> list[Generated]:
    """At most `most` of them, spread over kinds and files in turn (the same ones every run)."""
    by_kind: dict[str, list[Generated]] = {}
    for m in mutants:
        by_kind.setdefault(m.kind, []).append(m)
    queues = [list(v) for _, v in sorted(by_kind.items())]
    chosen: list[Generated] = []
    while len(chosen) < most and any(queues):
        for queue in queues:
            if queue and len(chosen) < most:
                files: dict[str, Generated] = {}
                for m in queue:  # the first of the file least chosen so far
                    files.setdefault(m.patch[0], m)
                counts = Counter(c.patch[0] for c in chosen)
                pick = min(files.values(), key=lambda m: (counts[m.patch[0]], queue.index(m)))
                queue.remove(pick)
                chosen.append(pick)
    return chosen
