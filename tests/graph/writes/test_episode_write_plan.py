"""An episode write (graph/writes/episodes.py write_episode: entities, facts, their links, relations, reports, a corroboration
and a supersession) is one transaction whose every statement starts from an index: ArcadeDB's PROFILE of each
shows index seeks and work on bound nodes, never a scan of a label, whose cost would grow with the guild's
history. The plan is read, not a timing."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

import graph.privacy.guards.optout_guard
import graph.writes.episodes
import queries
from graph.models import Corroboration, EpisodeWrite, RelationWrite, Report
from graph.reads.backlog import episode_by_key
from graph.session import Tx
from graph.store import GraphStore
from graph.writes.episodes import write_episode
from tests.graph.privacy.test_forget_plan import LABEL_SCAN
from tests.support.busy_server import GENERAL, T0, E, U, populate
from tests.support.write_count import CountedWrites

PLANS: list[tuple[str, str]] = []


async def _profiled(tx: Tx, name: str, /, **params: Any) -> list[dict[str, Any]]:
    result = await tx.run("PROFILE " + queries.load(name), params)
    rows = [record.data() async for record in result]
    summary = await result.consume()
    PLANS.append((name, str((summary.profile or {}).get("args", {}).get("string-representation", ""))))
    return rows


@pytest.mark.parametrize("store", ["arcadedb"], indirect=True)
async def test_an_episode_write_reads_only_through_indexes(store: GraphStore, monkeypatch: pytest.MonkeyPatch) -> None:
    p = await populate(store)
    t = T0 + timedelta(days=60)
    m1 = await p.say(GENERAL, "alice", "we moved to Denver after all, Luna loves it", t)
    m2 = await p.say(GENERAL, "bob", "yes she did move to Denver", t + timedelta(seconds=20))
    key = await p.episode(GENERAL, [m1, m2])
    denver = p.entity("denver", "Denver", "place")
    luna = p.entity("luna", "Luna", "pet", ("the fluffball",))  # known: gains an alias
    moved = p.fact(
        "alice_denver", "Alice moved to Denver", [U("alice")], m1, mentions=[E(denver.uuid)], supersedes=["alice_austin"]
    )
    loves = p.fact("luna_denver", "Luna loves Denver", [E(luna.uuid)], m1, mentions=[E(denver.uuid), U("alice")])
    write = EpisodeWrite(
        key=key,
        guild_id=m1.guild_id,
        summary="Alice moved to Denver.",
        entities=(denver, luna),
        relations=(RelationWrite(entity_uuid=denver.uuid, kind="home", target=U("alice")),),
        facts=(moved, loves),
        corroborations=(
            Corroboration(fact_uuid=moved.uuid, report=Report(user_id=m2.author_id, message_id=m2.id, at=m2.created_at)),
        ),
    )
    PLANS.clear()
    monkeypatch.setattr(graph.writes.episodes, "run", _profiled)
    monkeypatch.setattr(graph.privacy.guards.optout_guard, "run", _profiled)
    with CountedWrites(store) as writes:
        outcome = await write_episode(store, write)

    assert outcome.written and outcome.facts == 2 and outcome.superseded == 1 and outcome.corroborations == 1
    assert writes.count == 1
    names = [name for name, _ in PLANS]
    for name in ("store/episode_to_write", "store/write_entities", "store/write_episode_facts", "store/write_relations",
                 "store/write_reports", "store/write_supersessions"):  # fmt: skip
        assert name in names
    # statements (and round trips) per episode write, whatever its size: the episode's state with the opt-outs,
    # the current facts about its subjects (a restated fact corroborates one), entities, the new facts with all their
    # edges and the episode's end, relations, corroborations, supersessions
    assert len(PLANS) <= 7
    done = await episode_by_key(store, key)
    assert done is not None and done.status.value == "done" and done.summary == "Alice moved to Denver."
    # The new facts' edges are created, not merged: a MERGE of (new fact)-[:ABOUT]->(member) reads the member's
    # edges (thousands of facts in a big guild) to look for one that cannot exist yet.
    new_facts = next(plan for name, plan in PLANS if name == "store/write_episode_facts")
    assert "MERGE" not in new_facts and "CREATE" in new_facts
    assert all(plan for _, plan in PLANS), "every statement was profiled"
    scans = [(name, plan) for name, plan in PLANS if LABEL_SCAN.search(plan)]
    assert scans == []
    seeks = sum(plan.count("NodeIndexSeek") + plan.count("[index") for _, plan in PLANS)
    assert seeks >= 10
