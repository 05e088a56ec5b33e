"""Mutation testing of the erasure code: plant named bugs, one at a time, in a copy of the tree, run the tests that
should catch them, and print which were killed and which survived.

    .venv/bin/python -m tests.support.erasure_mutants                 # every mutant, the machine's CI profile
    .venv/bin/python -m tests.support.erasure_mutants --profile long  # the long search (minutes per mutant)
    .venv/bin/python -m tests.support.erasure_mutants M1 M3           # only these

Each mutant is a literal source patch (a string found exactly once, and its replacement), applied to a copy of
the tracked files of this tree in a temporary folder; its tests run there (`pytest` imports the copy, which the
script checks), so the tree itself is never changed. The unmutated copy runs first and must pass: a mutant
"killed" by a test that fails anyway proves nothing. Each run starts its own embedded ArcadeDB (20-40 s).
Exit code: 1 when the unmutated tree fails or a mutant expected to die survived."""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tests.support.mutation import copy_env, copy_tree, patched, pytest_in

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


def run_tests(tree: Path, tests: tuple[str, ...], profile: str) -> tuple[bool, float, str]:
    env = copy_env(tree, GRAPEVINE_HYPOTHESIS_PROFILE=profile, GRAPEVINE_HYPOTHESIS_NO_SHRINK="1")
    passed, seconds, said = pytest_in(tree, tests, env, "-s")
    lines = [line for line in said.splitlines() if line.startswith(("E ", "erasure model", "FAILED"))]
    return passed, seconds, "\n".join(lines[:6])


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
            patched(tree, mutant.name, mutant.patches)
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
