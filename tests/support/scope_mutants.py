"""Mutation check of the scope machine (tests/graph/privacy/test_scope_model.py): each mutant takes the visibility filter
out of one read (or one write that keeps the stored audience right) in a copy of the tree (tests/support/mutation.py),
the machine runs there against it, and a mutant the machine does not kill is reported. The unmutated copy runs
first and must pass. Besides the written list, bugs generated from the code of the scope's reads and writes
(`GENERATED_FROM`): a WHERE conjunct dropped, a comparison made exact, `any` made `all`, an edge kept, a label
skipped in a delete; `--generated N` runs N of them spread over kinds and files (0: none; `--all`: every one).

    .venv/bin/python -m tests.support.scope_mutants [name ...] [--generated N | --all] [--list]
    # GRAPEVINE_HYPOTHESIS_PROFILE picks the profile
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tests.support.mutation import (
    Patch,
    copy_env,
    copy_tree,
    generated,
    patched,
    pytest_in,
    sample,
    tracked,
    why_equivalent,
)

MACHINE = "tests/graph/privacy/test_scope_model.py"


@dataclass(frozen=True)
class Mutant:
    name: str
    path: str
    old: str
    new: str
    count: int = 1


MUTANTS = [
    Mutant("context/facts, answered by the read model (graph/reads/fact_model.py)", "graph/reads/fact_model.py",
           "            if channel_id is not None and not any(a in visible for a in f.audience):\n",
           "            if False:\n"),
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
    Mutant("conversation reply chain, answered by the read model (graph/reads/talk_model.py)", "graph/reads/talk_model.py",
           "    shown = sorted((m for m in found if m.channel_id in visible), key=lambda m: m.created, reverse=True)[:chain]\n",
           "    shown = sorted(found, key=lambda m: m.created, reverse=True)[:chain]\n"),
    Mutant("second round (facts of the recalled messages), answered by the read model", "graph/reads/context.py",
           "((r, f) for r, f in ranked.values() if any(a in visible for a in f.audience))",
           "((r, f) for r, f in ranked.values())"),
    Mutant("MCP run_query opt-outs", "grapevine/mcp_server.py",
           "_or_why_empty(reader, await without_opted_out(rows, reader.opted_out))", "_or_why_empty(reader, rows)"),
    Mutant("narrowing on a delete or edit", "graph/privacy/erasure.py",
           '    await run(tx, "store/narrow_audience", ids=ids)', "    pass"),
    Mutant("a channel made public widens on its own", "queries/channels/set_visibility.cypher",
           "WHEN first OR by_view <> 'shared' THEN by_view", "WHEN true THEN by_view"),
    Mutant("retention: no stored audience (sourceless facts shown anywhere)", "graph/reads/fact_model.py",
           "            if channel_id is not None and not any(a in visible for a in f.audience):\n",
           "            if channel_id is not None and f.sources and not ({c for _, c in f.sources} & visible):\n"),
]  # fmt: skip


GENERATED_FROM = tracked(
    "queries/context/*.cypher", "queries/store/facts_about.cypher", "queries/store/nearest_facts.cypher",
    "queries/operator/topic_timeline.cypher", "queries/operator/who_knows.cypher", "queries/channels/set_*.cypher",
    "queries/store/narrow_audience.cypher", "queries/schema/backfill_fact_audience.cypher",
    "queries/erasure/channel_*.cypher", "graph/reads/topics.py", "graph/privacy/opted_out.py",
)  # fmt: skip


def run(name: str, patches: list[Patch], count: int, base: Path) -> tuple[bool, float, str]:
    """Whether the machine killed the mutant (failed), the seconds it took, and the failed assertion."""
    tree = base.parent / "mutant"
    shutil.copytree(base, tree)
    try:
        patched(tree, name, patches, count)
        passed, seconds, said = pytest_in(tree, [MACHINE], copy_env(tree, GRAPEVINE_HYPOTHESIS_NO_SHRINK="1"))
    finally:
        shutil.rmtree(tree)
    lines = [line for line in said.splitlines() if line.strip()]
    why = [line for line in lines if line.startswith("E ")][:3]  # the failed assertion, not the teardown's noise
    return not passed, seconds, "\n".join(why or lines[-3:])


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="mutants to run (default: all written, and --generated of the others)")
    parser.add_argument("--generated", type=int, default=12, help="how many generated mutants to run")
    parser.add_argument("--all", action="store_true", help="every generated mutant")
    parser.add_argument("--list", action="store_true", help="list the mutants and stop")
    args = parser.parse_args(argv)
    made = generated(GENERATED_FROM)
    every = [(m.name, [(m.path, m.old, m.new)], m.count) for m in MUTANTS]
    every += [(g.name, [g.patch], 1) for g in (made if args.all else sample(made, args.generated))]
    if args.names:
        every = [e for e in every if e[0] in args.names]
        every += [(g.name, [g.patch], 1) for g in made if g.name in args.names and g.name not in {e[0] for e in every}]
    if args.list:
        print("\n".join(e[0] for e in every) + f"\n({len(made)} generated in all)")
        return 0
    survived = 0
    with tempfile.TemporaryDirectory(prefix="scope-mutants-") as folder:
        base = Path(folder) / "base"
        copy_tree(base)
        passed, seconds, said = pytest_in(base, [MACHINE], copy_env(base))
        print(f"unmutated: {'passed' if passed else 'FAILED'} in {seconds:.0f} s", flush=True)
        if not passed:
            print(said[-3000:])
            return 1
        for name, patches, count in every:
            killed, seconds, tail = run(name, patches, count, base)
            survived += not killed and not why_equivalent(name)
            if not killed and why_equivalent(name):
                tail = f"equivalent: {why_equivalent(name)}"
            print(
                f"{'killed  ' if killed else 'SURVIVED'} {seconds:5.0f} s  {name}\n    {tail.replace(chr(10), chr(10) + '    ')}",
                flush=True,
            )
    print(f"{survived} of {len(every)} mutants survived that are not named equivalent")
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
