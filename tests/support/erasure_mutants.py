"""Mutation testing of the erasure code: plant named bugs, one at a time, in a copy of the tree, run the tests that
should catch them, and print which were killed and which survived.

    .venv/bin/python -m tests.support.erasure_mutants                 # every mutant, the machine's CI profile
    .venv/bin/python -m tests.support.erasure_mutants --profile long  # the long search (minutes per mutant)
    .venv/bin/python -m tests.support.erasure_mutants M1 M3           # only these
    .venv/bin/python -m tests.support.erasure_mutants --generated 30  # 30 generated ones (--all: every one)

Besides the written list, bugs generated from the erasure code (`GENERATED_FROM`, tests/support/mutation.py): a
WHERE conjunct dropped, a comparison made exact (toLower, casefold, the normal form removed), `any` made `all`, an
edge kept, a label skipped in a delete; by default a dozen, spread over kinds and files.

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

from tests.support.mutation import copy_env, copy_tree, generated, patched, pytest_in, sample, tracked, why_equivalent

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
        "graph/privacy/guards/name_scope.py: a member's names matched in every guild",
        (
            (
                "graph/privacy/guards/name_scope.py",
                'return self.guilds.get(guild_id or "", ())',
                "return tuple(self.every_name())",
            ),
        ),
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
        "graph/privacy/guards/optout_guard.py: the opt-out guard skipped (an opted-out member's messages stored)",
        (
            (
                "graph/privacy/guards/optout_guard.py",
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
        "graph/privacy/guards/name_scope.py: a name another member of the guild carries is matched anyway",
        (
            (
                "graph/privacy/guards/name_scope.py",
                "    return {fold(n) for n in names if n.lower() in found}",
                "    return set()",
            ),
        ),
        tests=(MACHINE, "tests/graph/privacy/test_erasure_scope.py"),
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
        # the fallback would mask it in the end state; the machine audits between the transaction and the
        # thorough audit (as the bot runs them), where the summary of a conversation near the member must be gone
    ),
    Mutant(
        "M10",
        "common/names.py: only the first supported language's words kept from others' text (a minority's 'pero' "
        "taken for a name)",
        (
            (
                "common/names.py",
                "language) for language in SUPPORTED_LANGUAGES))))",
                "language) for language in SUPPORTED_LANGUAGES[:1]))))",
            ),
            (
                "common/names.py",
                "any(word_of(folded, language) for language in SUPPORTED_LANGUAGES)",
                "any(word_of(folded, language) for language in SUPPORTED_LANGUAGES[:1])",
            ),
            # the lists are cached under a key: a key of its own, or the unmutated lists are read back
            ("common/names.py", '"languages": list(SUPPORTED_LANGUAGES),', '"languages": list(SUPPORTED_LANGUAGES[:1]),'),
        ),
        # not the machine's to kill: its model reads what a name is with this very rule (common/names.identifying),
        # so the mutant moves the model with it; only an independent reading of what a word is kills it (wordfreq's
        # own ranking, tests/support/common_words.py)
        tests=("tests/common/test_names.py", "tests/graph/privacy/test_forget_minority_language.py"),
    ),
    Mutant(
        "M11",
        "common/text.py: texts compared by code point (no normal form) when matching names",
        (("common/text.py", 'return unicodedata.normalize("NFKC", text).casefold()', "return text.casefold()"),),
        # the model compares and redacts with this very function (common/text.names_word, redact), so the mutant
        # moves the model with it; only the machine's residue search reads texts its own way (NFKC, case folded),
        # and it finds a name left in another normal form only after that member's forget-me with a name of theirs
        # that has another form (an accent: their nickname made "Zoë" or "Jösé") written in that form by another
        # member of their guild, a sequence no example of the CI profile reaches
        tests=("tests/common/test_text.py",),
    ),
    Mutant(
        "M12",
        "graph/reads/fact_model.py: the reply's read model keeps a forgotten member's facts (this process's write "
        "moves the count it holds, the facts stay)",
        (
            (
                "graph/reads/fact_model.py",
                "            elif not change.facts:\n",
                "            elif True:\n",
            ),
        ),
        tests=(MACHINE, "tests/graph/reads/test_fact_model.py"),
    ),
    Mutant(
        "M13",
        "graph/reads/fact_model.py: a guild dropped from the read model keeps its channels' talk (a forget leaves the "
        "member's messages in memory)",
        (
            (
                "graph/reads/fact_model.py",
                "    def drop(self, guild_id: str) -> None:\n        self.guilds.pop(guild_id, None)\n",
                "    def drop(self, guild_id: str) -> None:\n        gone = self.guilds.pop(guild_id, None)\n"
                "        if gone is not None and gone.talk:\n"
                "            self.guilds[guild_id] = GuildFacts(count=None, talk=gone.talk)\n",
            ),
        ),
        tests=(MACHINE, "tests/graph/reads/test_talk_model.py"),
    ),
)


GENERATED_FROM = tracked(
    "queries/erasure/*.cypher", "queries/store/forget_*.cypher", "queries/store/export_*.cypher",
    "queries/store/residue_*.cypher", "queries/store/guild_residue_nodes.cypher", "queries/store/names_taken.cypher",
    "queries/retention/*.cypher", "graph/privacy/deletion.py", "graph/privacy/export.py", "graph/privacy/guards/name_scope.py",
    "common/text.py",
)  # fmt: skip


def run_tests(tree: Path, tests: tuple[str, ...], profile: str) -> tuple[bool, float, str]:
    env = copy_env(tree, GRAPEVINE_HYPOTHESIS_PROFILE=profile, GRAPEVINE_HYPOTHESIS_NO_SHRINK="1")
    passed, seconds, said = pytest_in(tree, tests, env, "-s")
    lines = [line for line in said.splitlines() if line.startswith(("E ", "erasure model", "FAILED"))]
    return passed, seconds, "\n".join(lines[:6])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="mutants to run (default: all)")
    parser.add_argument("--profile", default="ci", choices=["ci", "long"])
    parser.add_argument("--generated", type=int, default=12, help="how many generated mutants to run")
    parser.add_argument("--all", action="store_true", help="every generated mutant")
    parser.add_argument("--list", action="store_true", help="list the mutants and stop")
    args = parser.parse_args()
    made = generated(GENERATED_FROM)
    planted = [Mutant(g.name, g.name, (g.patch,), survives=why_equivalent(g.name))
               for g in (made if args.all else sample(made, args.generated))]  # fmt: skip
    chosen = [m for m in (*MUTANTS, *planted) if not args.names or m.name in args.names]
    chosen += [Mutant(g.name, g.name, (g.patch,), survives=why_equivalent(g.name)) for g in made
               if args.names and g.name in args.names and g.name not in {m.name for m in chosen}]  # fmt: skip
    if args.list:
        for m in chosen:
            print(f"{m.name}: {m.what}" if m.name != m.what else m.name)
            if m.survives:
                print(f"    expected to survive: {m.survives}")
        print(f"({len(made)} generated in all)")
        return 0
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
