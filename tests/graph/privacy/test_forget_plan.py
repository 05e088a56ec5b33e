"""Forget-me is one write transaction whose every statement starts from an index: ArcadeDB's PROFILE of
each statement shows index seeks, full-text lookups and expansions from bound nodes, never a scan of a
label or of every node (what made it take seconds on a large graph). The plan is read, not a timing."""

from __future__ import annotations

import re
from typing import Any

import pytest

import graph.privacy.deletion
import graph.writes.message_deletes
import queries
from graph.privacy.forget import forget_user
from graph.session import Tx
from graph.store import GraphStore
from tests.support.busy_server import G2, PEOPLE, populate
from tests.support.erasure_audit import residue_everywhere, residue_in_guild
from tests.support.write_count import CountedWrites

# The cost-based planner names its scans; the traditional one starts a pattern with "+ MATCH NODE (x...)" and
# says "[index: ...]" or "[id: ...]" when it seeks (an indented "MATCH NODE (u)" expands from a bound node).
LABEL_SCAN = re.compile(r"NodeByLabelScan|AllNodesScan|^\+ MATCH NODE \([^)]*\)(?! \[(?:index|id)\b)", re.MULTILINE)


async def _profiled(tx: Tx, text: str, /, **params: Any) -> list[dict[str, Any]]:
    result = await tx.run("PROFILE " + text, params)
    rows = [record.data() async for record in result]
    summary = await result.consume()
    PLANS.append((text, str((summary.profile or {}).get("args", {}).get("string-representation", ""))))
    return rows


PLANS: list[tuple[str, str]] = []


@pytest.mark.parametrize("store", ["arcadedb"], indirect=True)
async def test_forget_me_is_one_transaction_read_through_indexes(store: GraphStore, monkeypatch: pytest.MonkeyPatch) -> None:
    await populate(store)
    PLANS.clear()
    monkeypatch.setattr(graph.privacy.deletion, "run", lambda tx, name, /, **p: _profiled(tx, queries.load(name), **p))
    monkeypatch.setattr(graph.privacy.deletion, "run_text", _profiled)
    monkeypatch.setattr(graph.writes.message_deletes, "run", lambda tx, name, /, **p: _profiled(tx, queries.load(name), **p))
    with CountedWrites(store) as writes:
        report = await forget_user(store, PEOPLE["charlie"], thorough_audit=False)

    assert report.deleted["User"] == 1 and report.deleted["Fact"] >= 2 and not report.residue
    assert writes.count == 1  # deletion, redaction and the indexed audit: one transaction
    assert len(PLANS) == report.statements >= 10
    assert all(plan for _, plan in PLANS), "every statement was profiled"
    scans = [(text.splitlines()[0], plan) for text, plan in PLANS if LABEL_SCAN.search(plan)]
    assert scans == []
    seeks = sum(plan.count("NodeIndexSeek") + plan.count("[index") for _, plan in PLANS)
    assert seeks >= 10
    monkeypatch.undo()
    assert await residue_everywhere(store, PEOPLE["charlie"]) == []  # no fallback needed


@pytest.mark.parametrize("store", ["arcadedb"], indirect=True)
async def test_a_forget_in_one_guild_is_redacted_and_audited_there_through_indexes(
    store: GraphStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A moderator's forget (one guild, the account kept for the other): membership, redaction and the audit of
    that guild are in the same transaction, every statement from an index; the whole-guild scan is not in it."""
    await populate(store)
    PLANS.clear()
    monkeypatch.setattr(graph.privacy.deletion, "run", lambda tx, name, /, **p: _profiled(tx, queries.load(name), **p))
    monkeypatch.setattr(graph.privacy.deletion, "run_text", _profiled)
    monkeypatch.setattr(graph.writes.message_deletes, "run", lambda tx, name, /, **p: _profiled(tx, queries.load(name), **p))

    report = await forget_user(store, PEOPLE["charlie"], guild_id=G2, known_names=["Charlie"], thorough_audit=False)

    assert report.deleted["User"] == 0 and report.deleted["Message"] >= 1 and not report.indexed_residue
    assert len(PLANS) == report.statements
    names = [text.splitlines()[0] for text, _ in PLANS]
    assert any("membership" in n for n in names) and any("own node" in n for n in names)  # leave_guild, the edges' audit
    assert [(text.splitlines()[0], plan) for text, plan in PLANS if LABEL_SCAN.search(plan)] == []
    monkeypatch.undo()
    assert await residue_in_guild(store, PEOPLE["charlie"], G2) == []


@pytest.mark.parametrize("store", ["arcadedb"], indirect=True)
async def test_the_plan_check_sees_a_scan(store: GraphStore) -> None:
    """The pattern above recognises ArcadeDB's scans in both of its planners' words."""
    await populate(store)
    PLANS.clear()

    async def work(tx: Tx) -> None:
        await _profiled(tx, "MATCH (f:Fact) WHERE f.text CONTAINS $w RETURN f.uuid AS uuid", w="Austin")
        await _profiled(tx, "UNWIND $ws AS w MATCH (f:Fact) WHERE f.text CONTAINS w RETURN f.uuid AS uuid", ws=["Austin"])
        await _profiled(tx, queries.load("store/residue_relationships"), user_id=PEOPLE["charlie"])

    await store.runner.read_tx(work)
    assert [bool(LABEL_SCAN.search(plan)) for _, plan in PLANS] == [True, True, True], PLANS
