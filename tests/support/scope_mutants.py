"""Mutation check of the scope machine (tests/graph/test_scope_model.py): each mutant takes the visibility filter
out of one read (or one write that keeps the stored audience right) in a copy of the tree (tests/support/mutation.py),
the machine runs there against it, and a mutant the machine does not kill is reported. The unmutated copy runs
first and must pass.

    .venv/bin/python -m tests.support.scope_mutants [name ...]   # GRAPEVINE_HYPOTHESIS_PROFILE picks the profile
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tests.support.mutation import copy_env, copy_tree, patched, pytest_in

MACHINE = "tests/graph/test_scope_model.py"


@dataclass(frozen=True)
class Mutant:
    name: str
    path: str
    old: str
    new: str
    count: int = 1


MUTANTS = [
    Mutant("context/facts", "queries/context/facts.cypher",
           "WITH visible, source, f WHERE $channel_id IS NULL OR any(a IN f.audience WHERE a IN visible)",
           "WITH visible, source, f"),
    Mutant("nearest facts", "queries/store/nearest_facts.cypher",
           "AND ($channel_id IS NULL OR any(a IN f.audience WHERE a IN visible))", ""),
    Mutant("second round (facts of the recalled messages)", "queries/context/second_round.cypher",
           "  WHERE any(a IN f.audience WHERE a IN visible)\n", ""),
    Mutant("memory about (store/facts_about)", "queries/store/facts_about.cypher",
           "AND ($channel_id IS NULL OR any(a IN f.audience WHERE a IN visible))", ""),
    Mutant("topic_timeline facts (MCP facts and timeline, /memory timeline)", "queries/operator/topic_timeline.cypher",
           "WITH visible, f WHERE $channel_id IS NULL OR any(a IN f.audience WHERE a IN visible)\n", "WITH visible, f\n"),
    Mutant("topic_timeline supersession", "queries/operator/topic_timeline.cypher",
           "(newer:Fact) WHERE $channel_id IS NULL OR any(a IN newer.audience WHERE a IN visible) |", "(newer:Fact) |", 2),
    Mutant("topic_timeline sources", "queries/operator/topic_timeline.cypher",
           " WHERE $channel_id IS NULL OR x.channel_id IN visible] AS shown", "] AS shown", 2),
    Mutant("who_knows facts", "queries/operator/who_knows.cypher",
           "WITH visible, node AS f WHERE f.guild_id = $guild_id AND ($channel_id IS NULL OR any(a IN f.audience WHERE a IN visible))",
           "WITH visible, node AS f WHERE f.guild_id = $guild_id"),
    Mutant("conversation reply chain", "queries/context/conversation.cypher",
           "WITH DISTINCT m, visible WHERE m.guild_id = $guild_id AND m.channel_id IN visible",
           "WITH DISTINCT m, visible WHERE m.guild_id = $guild_id"),
    Mutant("MCP run_query opt-outs", "grapevine/mcp_server.py",
           "        return await topics.without_opted_out(rows, reader.opted_out)", "        return rows"),
    Mutant("narrowing on a delete or edit", "graph/privacy/erasure.py",
           '    await run(tx, "store/narrow_audience", ids=ids)', "    pass"),
    Mutant("a channel made public widens on its own", "queries/channels/set_visibility.cypher",
           "WHEN first OR by_view <> 'shared' THEN by_view", "WHEN true THEN by_view"),
    Mutant("retention: no stored audience (sourceless facts shown anywhere)", "queries/context/facts.cypher",
           "any(a IN f.audience WHERE a IN visible)",
           "(size([(f)-[:FROM]->(x:Message) | x]) = 0 OR any(a IN [(f)-[:FROM]->(x:Message) | x.channel_id] WHERE a IN visible))"),
]  # fmt: skip


def run(mutant: Mutant, base: Path) -> tuple[bool, float, str]:
    """Whether the machine killed the mutant (failed), the seconds it took, and the failed assertion."""
    tree = base.parent / "mutant"
    shutil.copytree(base, tree)
    try:
        patched(tree, mutant.name, [(mutant.path, mutant.old, mutant.new)], mutant.count)
        passed, seconds, said = pytest_in(tree, [MACHINE], copy_env(tree))
    finally:
        shutil.rmtree(tree)
    lines = [line for line in said.splitlines() if line.strip()]
    why = [line for line in lines if line.startswith("E ")][:3]  # the failed assertion, not the teardown's noise
    return not passed, seconds, "\n".join(why or lines[-3:])


def main(names: list[str]) -> int:
    chosen = [m for m in MUTANTS if not names or m.name in names]
    survived = 0
    with tempfile.TemporaryDirectory(prefix="scope-mutants-") as folder:
        base = Path(folder) / "base"
        copy_tree(base)
        passed, seconds, said = pytest_in(base, [MACHINE], copy_env(base))
        print(f"unmutated: {'passed' if passed else 'FAILED'} in {seconds:.0f} s", flush=True)
        if not passed:
            print(said[-3000:])
            return 1
        for mutant in chosen:
            killed, seconds, tail = run(mutant, base)
            survived += not killed
            print(
                f"{'killed  ' if killed else 'SURVIVED'} {seconds:5.0f} s  {mutant.name}\n"
                f"    {tail.replace(chr(10), chr(10) + '    ')}",
                flush=True,
            )
    print(f"{len(chosen) - survived} of {len(chosen)} mutants killed")
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
