"""Check that bench.scale's load writes the guild generate() describes: every fact with its provenance, a
superseded fact created closed (label Closed, invalid_at and expired_at its successor's valid_at) and linked
once by SUPERSEDES, every other fact open.

    python -m bench.scale_check [--scale 0.2]

Prints one line; exits 1 on the first difference (run by tests/test_bench_quick.py).
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence

from bench.common import TempArcadeDB, quiet_logs
from bench.queries import bench_read
from bench.scale_guild import generate, load

FACTS_STEP = "facts (REPORTED_BY, FROM, EXTRACTED_FROM)"


async def differences(scale: float) -> tuple[int, int, list[str]]:
    """(facts, closed facts, what differs from the generated guild)."""
    g = generate(scale)
    with TempArcadeDB() as db:
        store = await db.store("check")
        steps = {what: rows for what, rows, _ in await load(store, g)}
        found = await bench_read(store, "fact_states")
        await db.close_drivers()
    wrong = [] if steps[FACTS_STEP] == len(g.facts) else [f"the facts step loaded {steps[FACTS_STEP]} of {len(g.facts)}"]
    facts = {r["uuid"]: r for r in found}
    if len(facts) != len(g.facts):
        wrong.append(f"{len(facts)} facts in the graph, {len(g.facts)} generated")
    closed_by = {s["old_uuid"]: s["new_uuid"] for s in g.supersessions}
    for f in g.facts:
        row = facts.get(f["uuid"])
        if row is None:
            continue
        if (row["reporters"], row["sources"], row["episodes"]) != (1, 1, 1):
            wrong.append(f"{f['uuid']}: provenance {row['reporters']}, {row['sources']}, {row['episodes']}")
        successor = facts.get(closed_by.get(f["uuid"], ""))
        if f["uuid"] in closed_by:
            closes = successor["valid_at"] if successor else None
            if not (row["closed"] and row["by"] == [closed_by[f["uuid"]]] and row["invalid_at"] == row["expired_at"] == closes):
                wrong.append(f"{f['uuid']}: not closed by its successor: {row}")
        elif row["closed"] or row["by"] or row["invalid_at"] is not None or row["expired_at"] is not None:
            wrong.append(f"{f['uuid']}: closed though nothing supersedes it: {row}")
    return len(facts), sum(1 for r in found if r["closed"]), wrong


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.scale_check", description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=0.2)
    parser.add_argument("--quick", action="store_true", help="the default scale (for tests/test_bench_quick.py)")
    args = parser.parse_args(argv)
    quiet_logs()
    facts, closed, wrong = asyncio.run(differences(args.scale))
    if wrong:
        print(f"the loaded guild differs from the generated one ({len(wrong)} differences), first: {wrong[0]}")
        return 1
    print(f"the loaded guild is the generated one: {facts:,} facts, {closed:,} of them closed by a successor")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
