"""`bench.locomo`'s reads saved once and replayed: the assembly re-run over what the graph gave, without ingest or reads.

    python -m bench.locomo --quick --save-reads reads.pickle   # gather every question once, save what was read
    python -m bench.locomo --replay reads.pickle [--budgets 500 1000 2000]

A replay assembles each saved question at each budget as `recall.gather.build_context` does and prints evidence recall
per category: a change to `recall.assemble` is measured in seconds. A change to what the reads return (gather, expand,
the queries) needs a new save. The file is a pickle of this process's own objects: read only files you wrote.
"""

from __future__ import annotations

import pickle
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from common.settings import ContextSettings, RecallTuning
from recall.assemble import Gathered, ReplyContext, assemble


@dataclass
class SavedRead:
    """One question's reads: what `gather` and `with_evidence` returned, and how to tell its evidence in a context."""

    category: int
    evidence: list[str]  # dia_ids
    gathered: Gathered
    sources: Mapping[str, set[str]]  # fact uuid -> message ids it was drawn from (shared by a conversation's questions)
    dia_of: Mapping[str, str]  # message id -> dia_id


def found_in(ctx: ReplyContext, sources: Mapping[str, set[str]], dia_of: Mapping[str, str]) -> set[str]:
    """The turns a context holds: its messages, and the turns its facts were drawn from."""
    found = {dia_of[m] for m in ctx.message_ids if m in dia_of}
    return found | {dia_of[m] for f in ctx.fact_uuids for m in sources.get(f, ()) if m in dia_of}


def save(path: Path, reads: Sequence[SavedRead]) -> None:
    path.write_bytes(pickle.dumps(list(reads), protocol=pickle.HIGHEST_PROTOCOL))


def load(path: Path) -> list[SavedRead]:
    reads = pickle.loads(path.read_bytes())  # a file this bench wrote (see the module's note)
    if not isinstance(reads, list) or not all(isinstance(r, SavedRead) for r in reads):
        raise ValueError(f"{path}: not reads saved by python -m bench.locomo --save-reads")
    return reads


def replay(
    reads: Sequence[SavedRead],
    budgets: Sequence[int],
    settings_at: Mapping[int, ContextSettings],
    tuning: RecallTuning = RecallTuning(),
) -> dict[tuple[int, int], list[float]]:
    """(budget, category; 0 for all) -> evidence recall per question, each saved read assembled at each budget."""
    out: dict[tuple[int, int], list[float]] = defaultdict(list)
    for read in reads:
        for budget in budgets:
            ctx = assemble(read.gathered, settings_at[budget], tuning)
            found = found_in(ctx, read.sources, read.dia_of)
            share = sum(e in found for e in read.evidence) / len(read.evidence)
            out[(budget, read.category)].append(share)
            out[(budget, 0)].append(share)
    return out


def rows(recalls: Mapping[tuple[int, int], list[float]], budgets: Sequence[int], categories: Sequence[int]) -> list[list[str]]:
    """One row per budget: recall per category, then overall, in percent."""

    def cell(values: list[float] | None) -> str:
        return f"{100 * sum(values) / len(values):.1f}%" if values else "-"

    return [[str(b or "none"), *(cell(recalls.get((b, c))) for c in categories), cell(recalls.get((b, 0)))] for b in budgets]
