"""Mutation runs shared by the machines' mutant lists (tests/support/scope_mutants.py, tests/support/erasure_mutants.py):
each planted bug is a literal source patch applied to a copy of the tree in a temporary folder, whose tests run
there (pytest imports the copy, which is checked), so the working tree is never changed, whatever happens."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
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
