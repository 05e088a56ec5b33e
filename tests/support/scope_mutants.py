"""Mutation check of the scope machine (tests/graph/test_scope_model.py): each mutant takes the visibility filter
out of one read (or one write that keeps the stored audience right), the machine runs against it, and a mutant
the machine does not kill is reported. The file is restored whatever happens.

    .venv/bin/python -m tests.support.scope_mutants [name ...]   # GRAPEVINE_HYPOTHESIS_PROFILE picks the profile
"""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
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


def run(mutant: Mutant) -> tuple[bool, float, str]:
    """Whether the machine killed the mutant (failed), the seconds it took, and the last lines it printed."""
    path = ROOT / mutant.path
    original = path.read_text(encoding="utf-8")
    found = original.count(mutant.old)
    if found != mutant.count:
        raise SystemExit(f"{mutant.name}: expected {mutant.count} of the mutated text in {mutant.path}, found {found}")
    started = time.monotonic()
    try:
        path.write_text(original.replace(mutant.old, mutant.new), encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", MACHINE],
            cwd=ROOT, capture_output=True, text=True, check=False,
        )  # fmt: skip
    finally:
        path.write_text(original, encoding="utf-8")
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    why = [line for line in lines if line.startswith("E ")][:3]  # the failed assertion, not the teardown's noise
    return done.returncode != 0, time.monotonic() - started, "\n".join(why or lines[-3:])


def main(names: list[str]) -> int:
    chosen = [m for m in MUTANTS if not names or m.name in names]
    survived = 0
    for mutant in chosen:
        killed, seconds, tail = run(mutant)
        survived += not killed
        print(
            f"{'killed  ' if killed else 'SURVIVED'} {seconds:5.0f} s  {mutant.name}\n    {tail.replace(chr(10), chr(10) + '    ')}"
        )
    print(f"{len(chosen) - survived} of {len(chosen)} mutants killed")
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
