"""The machines' planted bugs still plant what they say: each listed mutant's patch text is found in today's tree
exactly as often as the runner requires (a stale patch stops a mutation run at that mutant, and every one after it
goes unrun)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import erasure_mutants, scope_mutants

REPO = Path(__file__).resolve().parents[1]


def found(file: str, old: str) -> int:
    return (REPO / file).read_text(encoding="utf-8").count(old)


@pytest.mark.parametrize("mutant", scope_mutants.MUTANTS, ids=lambda m: m.name)
def test_every_scope_mutant_applies(mutant: scope_mutants.Mutant) -> None:
    assert found(mutant.path, mutant.old) == mutant.count, (mutant.path, mutant.old)


@pytest.mark.parametrize("mutant", erasure_mutants.MUTANTS, ids=lambda m: m.name)
def test_every_erasure_mutant_applies(mutant: erasure_mutants.Mutant) -> None:
    for file, old, _ in mutant.patches:
        assert found(file, old) == 1, (mutant.name, file, old)
    assert all((REPO / t.split("::")[0]).is_file() for t in mutant.tests), mutant.tests
