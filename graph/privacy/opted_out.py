"""Who opted out, for the reads that show members to operators and assistants: an opt-out read in a rolled-back
READ session on whichever store the caller holds (`opted_out_reader`), and an operator query's rows and
parameters held to it (`without_opted_out`, `asks_for_opted_out`): an opted-out member is shown nowhere, as one
never stored."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import queries
from graph.privacy.guards.consent import OptedOut
from graph.reads.operator import read_rolled_back
from graph.store import GraphStore


async def asks_for_opted_out(params: Mapping[str, Any], opted_out: OptedOut) -> bool:
    """Whether an operator query's parameters ask for an opted-out member by id (`user_id`): such a read shows
    nothing, as for a member never stored."""
    user_id = params.get("user_id")
    return bool(user_id) and bool(await opted_out({str(user_id)}))


async def without_opted_out(rows: list[dict[str, Any]], opted_out: OptedOut) -> list[dict[str, Any]]:
    """Rows of an operator query without the opted-out members: a row that is one member's (`user_id`: a knower,
    a reporter, an author) goes, and an opted-out member leaves the `reporters` (maps with the member's `id`) of
    the rest."""
    reporters: list[list[Any]] = [r["reporters"] if isinstance(r.get("reporters"), list) else [] for r in rows]
    ids = {str(r["user_id"]) for r in rows if r.get("user_id")} | {
        str(x["id"]) for found in reporters for x in found if _reporter(x)
    }
    out = await opted_out(ids)
    if not out:
        return rows
    kept = []
    for row, found in zip(rows, reporters, strict=True):
        if row.get("user_id") is not None and str(row["user_id"]) in out:
            continue
        kept.append(
            row | {"reporters": [x for x in found if not _reporter(x) or str(x["id"]) not in out]} if "reporters" in row else row
        )
    return kept


def _reporter(value: Any) -> bool:
    """Whether an item of a row's `reporters` names a member (an operator query's reporter map)."""
    return isinstance(value, dict) and value.get("id") is not None


def opted_out_reader(store: GraphStore, consent_key: Callable[[str], str]) -> OptedOut:
    """`opted_out` for a caller that holds only a reader: the opt-out records read in a rolled-back READ session."""

    async def among(user_ids: set[str]) -> set[str]:
        keys = {consent_key(i): i for i in user_ids if i}
        if not keys:
            return set()
        found = await read_rolled_back(store, queries.load("store/opted_out_among"), {"keys": sorted(keys)})
        return {keys[r["key"]] for r in found}

    return among
