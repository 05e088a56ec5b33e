"""Both machines against every planted bug: each mutant of the scope and erasure lists (tests/support/scope_mutants.py,
tests/support/erasure_mutants.py) and N generated ones from each list's code, planted one at a time in a copy of the
tree (tests/support/mutation.py); the scope machine and the erasure machine run there in one pytest, and a table
says which of them killed it (a machine kills a bug when it fails on it and passed on the unmutated copy).

    .venv/bin/python -m tests.support.machine_mutants [--generated N] [--table FILE] [--own] [name ...]
    # GRAPEVINE_HYPOTHESIS_PROFILE picks the profile (ci by default)
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.support import erasure_mutants, scope_mutants
from tests.support.mutation import (
    Patch,
    check_imports_the_copy,
    copy_env,
    copy_tree,
    generated,
    patched,
    sample,
    why_equivalent,
)

MACHINES = {"scope": scope_mutants.MACHINE, "erasure": erasure_mutants.MACHINE}


def machines_in(tree: Path, env: dict[str, str], only: str | None = None) -> tuple[dict[str, bool | None], float, str]:
    """Whether each machine failed in the copy (None: not run), the seconds they took, and the first failed assertions."""
    check_imports_the_copy(tree, env)
    run = [name for name in MACHINES if only in (None, name)]
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfE", *(MACHINES[n] for n in run)],
        cwd=tree, env=env, capture_output=True, text=True,
    )  # fmt: skip
    said = done.stdout + done.stderr
    failed: dict[str, bool | None] = {
        name: (f"FAILED {path}" in said or f"ERROR {path}" in said) if name in run else None for name, path in MACHINES.items()
    }
    if done.returncode not in (0, 1):  # not collected, or pytest itself failed: no machine ran
        failed = {name: True if name in run else None for name in MACHINES}
    why = [line for line in said.splitlines() if line.startswith("E ")][:2]
    return failed, time.monotonic() - started, "\n".join(why)


def every_mutant(per_list: int) -> list[tuple[str, str, list[Patch], int]]:
    """(list, name, patches, count) of the written lists and `per_list` generated from each list's code."""
    found: list[tuple[str, str, list[Patch], int]] = []
    found += [("scope", m.name, [(m.path, m.old, m.new)], m.count) for m in scope_mutants.MUTANTS]
    found += [("erasure", f"{m.name}: {m.what}", list(m.patches), 1) for m in erasure_mutants.MUTANTS]
    for kind, files in (("scope gen", scope_mutants.GENERATED_FROM), ("erasure gen", erasure_mutants.GENERATED_FROM)):
        found += [(kind, g.name, [g.patch], 1) for g in sample(generated(files), per_list)]
    return found


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="only the mutants whose name starts with one of these")
    parser.add_argument("--generated", type=int, default=6, help="generated mutants of each list's code")
    parser.add_argument("--table", type=Path, help="write the table here too, a row as each mutant ends")
    parser.add_argument("--own", action="store_true", help="each mutant against its own list's machine only (faster)")
    args = parser.parse_args(argv)
    chosen = [m for m in every_mutant(args.generated) if not args.names or any(m[1].startswith(n) for n in args.names)]
    profile = os.environ.get("GRAPEVINE_HYPOTHESIS_PROFILE", "ci")
    rows = [f"profile {profile}", f"{'list':<12} {'scope':<8} {'erasure':<8} {'seconds':>7}  mutant"]

    def say(line: str) -> None:
        rows.append(line)
        print(line, flush=True)
        if args.table:
            args.table.write_text("\n".join(rows) + "\n", encoding="utf-8")

    with tempfile.TemporaryDirectory(prefix="machine-mutants-") as folder:
        base = Path(folder) / "base"
        copy_tree(base)
        failed, seconds, why = machines_in(base, copy_env(base))
        say(
            f"{'unmutated':<12} {'failed' if failed['scope'] else 'passed':<8} {'failed' if failed['erasure'] else 'passed':<8} {seconds:7.0f}"
        )
        if any(failed.values()):
            print(why)
            return 1
        kills = dict.fromkeys(MACHINES, 0)
        either = 0
        for kind, name, patches, count in chosen:
            tree = Path(folder) / "mutant"
            shutil.copytree(base, tree)
            try:
                patched(tree, name, patches, count)
                only = kind.split()[0] if args.own else None
                failed, seconds, why = machines_in(tree, copy_env(tree, GRAPEVINE_HYPOTHESIS_NO_SHRINK="1"), only)
            finally:
                shutil.rmtree(tree)
            for machine in MACHINES:
                kills[machine] += bool(failed[machine])
            either += any(failed.values())
            marks = ["killed" if failed[m] else "-" if failed[m] is not None else "not run" for m in MACHINES]
            say(f"{kind:<12} {marks[0]:<8} {marks[1]:<8} {seconds:7.0f}  {name}")
            if not any(failed.values()) and why_equivalent(name):
                say(f"{'':<12} equivalent: {why_equivalent(name)}")
        say(f"total: {len(chosen)} mutants; scope machine killed {kills['scope']}, erasure machine killed "
            f"{kills['erasure']}, either {either}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
