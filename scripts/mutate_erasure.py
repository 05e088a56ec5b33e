"""Mutation testing of the erasure code: plant named bugs, one at a time, in a copy of the tree, run the tests that
should catch them, and print which were killed and which survived.

    .venv/bin/python scripts/mutate_erasure.py                 # every mutant, the machine's CI profile
    .venv/bin/python scripts/mutate_erasure.py --profile long  # the long search (minutes per mutant)
    .venv/bin/python scripts/mutate_erasure.py M1 M3           # only these

Each mutant is a literal source patch (a string found exactly once, and its replacement), applied to a copy of
the tracked files of this tree in a temporary folder; its tests run there (`pytest` imports the copy, which the
script checks), so the tree itself is never changed. The unmutated copy runs first and must pass: a mutant
"killed" by a test that fails anyway proves nothing. Each run starts its own embedded ArcadeDB (20-40 s).
Exit code: 1 when the unmutated tree fails or a mutant expected to die survived."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MACHINE = "tests/graph/privacy/test_erasure_model.py"


@dataclass(frozen=True)
class Mutant:
    name: str
    what: str
    patches: tuple[tuple[str, str, str], ...]  # (file, text found exactly once, its replacement)
    tests: tuple[str, ...] = (MACHINE,)
    survives: str = ""  # why it is expected to survive (an equivalent or masked mutant); empty: it must die


MUTANTS = (
    Mutant(
        "M1",
        "graph/privacy/deletion.py: summaries no longer redacted (in the transaction, nor by the audit's fallback)",
        (
            (
                "graph/privacy/deletion.py",
                'rows["Episode"] = [{"key": k, "props": p} for k, p in by_episode.items()]',
                'rows["Episode"] = []',
            ),
            ("graph/privacy/audit.py", '"Episode": ("summary", "error"), ', ""),
        ),
    ),
    Mutant(
        "M2",
        "graph/privacy/name_scope.py: a member's names matched in every guild",
        (("graph/privacy/name_scope.py", 'return self.guilds.get(guild_id or "", ())', "return tuple(self.every_name())"),),
    ),
    Mutant(
        "M3",
        "graph/privacy/deletion.py: messages deleted without clearing reply pointers",
        (
            (
                "graph/privacy/deletion.py",
                'report.deleted["Message"] = (await delete_messages(tx, ids)).messages',
                'report.deleted["Message"] = int((await f.run("store/forget_messages", ids=ids))[0]["messages"]) if ids else 0',
            ),
        ),
    ),
    Mutant(
        "M4",
        "graph/privacy/optout_guard.py: the opt-out guard skipped (an opted-out member's messages stored)",
        (
            (
                "graph/privacy/optout_guard.py",
                "    keys = {consent_key(i): i for i in set(user_ids) if i}\n",
                "    return set()\n",
            ),
        ),
    ),
    Mutant(
        "M5",
        "queries/store/residue_nodes.cypher: the thorough audit (and its fallback scan) skips summaries",
        (
            (
                "queries/store/residue_nodes.cypher",
                "WHERE NOT n:GraphMeta AND NOT n:OptOut",
                "WHERE NOT n:GraphMeta AND NOT n:OptOut AND NOT n:Episode",
            ),
        ),
    ),
    Mutant(
        "M6",
        "graph/privacy/export.py: other members shown by id rather than display name",
        (
            (
                "graph/privacy/export.py",
                "return YOU if user_id == self.user_id else self.names.get((guild_id, user_id), NOT_STORED)",
                "return YOU if user_id == self.user_id else user_id",
            ),
        ),
    ),
    Mutant(
        "M7",
        "graph/privacy/name_scope.py: a name another member of the guild carries is matched anyway",
        (("graph/privacy/name_scope.py", "    return {fold(n) for n in names if n.lower() in found}", "    return set()"),),
    ),
    Mutant(
        "M8",
        "graph/privacy/deletion.py: a moderator's forget redacts the texts of every guild",
        (("graph/privacy/deletion.py", 'return [r for r in rows if self.guild_id in (None, r["guild_id"])]', "return rows"),),
    ),
    Mutant(
        "M9",
        "graph/privacy/deletion.py: the in-transaction redaction of summaries skipped (the audit's fallback left in place)",
        (
            (
                "graph/privacy/deletion.py",
                'rows["Episode"] = [{"key": k, "props": p} for k, p in by_episode.items()]',
                'rows["Episode"] = []',
            ),
        ),
        survives="masked by design: the thorough audit finds the summary and its fallback scan redacts it before the "
        "forget reports clean, so the end state is the same (the machine checks end states); only the forget's speed "
        "differs",
    ),
    Mutant(
        "M10",
        "common/names.py: the guild's languages ignored (a word of French or Italian taken for a name)",
        (("common/names.py", "for language in dict.fromkeys((LANGUAGE, *languages)))", "for language in (LANGUAGE,))"),),
        tests=("tests/common/test_names.py",),
    ),
    Mutant(
        "M11",
        "common/text.py: texts compared by code point (no normal form) when matching names",
        (("common/text.py", 'return unicodedata.normalize("NFKC", text).casefold()', "return text.casefold()"),),
        tests=("tests/common/test_text.py",),
    ),
)


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


def apply(tree: Path, mutant: Mutant) -> None:
    for file, old, new in mutant.patches:
        path = tree / file
        text = path.read_text(encoding="utf-8")
        if text.count(old) != 1:
            raise SystemExit(f"{mutant.name}: the patch of {file} no longer applies (found {text.count(old)} times): {old!r}")
        path.write_text(text.replace(old, new), encoding="utf-8")


def imported_from(tree: Path, env: dict[str, str]) -> str:
    """Where the copy's `graph` package is imported from when its tests run (it must be the copy)."""
    found = subprocess.run(
        [sys.executable, "-c", "import graph.privacy.deletion, common.text; print(graph.privacy.deletion.__file__)"],
        cwd=tree, env=env, check=True, capture_output=True, text=True,
    )  # fmt: skip
    return found.stdout.strip()


def run_tests(tree: Path, tests: tuple[str, ...], profile: str) -> tuple[bool, float, str]:
    env = dict(os.environ, PYTHONPATH=str(tree), GRAPEVINE_HYPOTHESIS_PROFILE=profile, GRAPEVINE_HYPOTHESIS_NO_SHRINK="1")
    where = imported_from(tree, env)
    if not where.startswith(str(tree)):
        raise SystemExit(f"the copy's tests import {where}, not the copy in {tree}")
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-s", "-p", "no:cacheprovider", *tests],
        cwd=tree, env=env, capture_output=True, text=True,
    )  # fmt: skip
    said = done.stdout + done.stderr
    lines = [line for line in said.splitlines() if line.startswith(("E ", "erasure model", "FAILED"))]
    return done.returncode == 0, time.monotonic() - started, "\n".join(lines[:6])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="mutants to run (default: all)")
    parser.add_argument("--profile", default="ci", choices=["ci", "long"])
    args = parser.parse_args()
    chosen = [m for m in MUTANTS if not args.names or m.name in args.names]
    with tempfile.TemporaryDirectory(prefix="mutate-erasure-") as folder:
        base = Path(folder) / "base"
        copy_tree(base)
        passed, seconds, said = run_tests(base, tuple(sorted({t for m in chosen for t in m.tests})), args.profile)
        print(f"unmutated: {'passed' if passed else 'FAILED'} in {seconds:.0f} s", flush=True)
        if not passed:
            print(said)
            return 1
        bad = killed = 0
        for mutant in chosen:
            tree = Path(folder) / mutant.name
            shutil.copytree(base, tree)
            apply(tree, mutant)
            passed, seconds, said = run_tests(tree, mutant.tests, args.profile)
            killed += not passed
            print(f"{mutant.name} {'survived' if passed else 'killed'} in {seconds:.0f} s: {mutant.what}", flush=True)
            if passed and mutant.survives:
                print(f"    survivor explained: {mutant.survives}")
            elif passed:
                bad += 1
                print("    NOT expected: a planted bug no test caught")
            elif mutant.survives:
                print("    expected to survive, but a test caught it: its explanation is out of date")
            if not passed:
                print("    " + (said.splitlines()[0] if said else "(see pytest's output)")[:300], flush=True)
            shutil.rmtree(tree)
        print(f"{len(chosen)} mutants: {killed} killed, {len(chosen) - killed} survived ({bad} not expected to)")
        return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
