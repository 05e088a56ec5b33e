"""The facts reads (graph/reads/facts.py) on a populated graph: what holds now, about whom, reported by whom,
what replaced what, and which members a name finds."""

from __future__ import annotations

from datetime import timedelta

from graph.reads.facts import facts_about, facts_history, members_by_name
from graph.store import GraphStore
from tests.support.busy_server import G1, G2, MUNICH_AT, PEOPLE, T0, move_bob_to_munich, populate


async def test_facts_about_user_hold_now_ordered_with_reporters(store: GraphStore) -> None:
    p = await populate(store)
    facts = await facts_about(store, G1, user_ids=[PEOPLE["alice"]], now=T0 + timedelta(days=3))
    assert [f.uuid for f in facts] == [p.facts["alice_austin"], p.facts["alice_luna"]]
    assert facts[0].reporters[0][:2] == (PEOPLE["alice"], "Alice")
    assert facts[0].about == ("Alice",)
    assert facts[0].valid_at == T0 + timedelta(days=30)
    assert all("vegetarian" not in f.text for f in facts), "a fact of another guild leaked"


async def test_third_party_fact_is_about_frank_and_corroborated(store: GraphStore) -> None:
    p = await populate(store)
    facts = await facts_about(store, G1, user_ids=[PEOPLE["frank"]])
    assert [f.uuid for f in facts] == [p.facts["frank_engaged"]]
    assert [r[0] for r in facts[0].reporters] == [PEOPLE["eve"], PEOPLE["grace"]]
    assert await facts_about(store, G1, user_ids=[PEOPLE["eve"]]) == []


async def test_supersession_keeps_history(store: GraphStore) -> None:
    p = await populate(store)
    at = MUNICH_AT
    assert (await move_bob_to_munich(p, at)).superseded == 1
    now = await facts_about(store, G1, user_ids=[PEOPLE["bob"]], now=at)
    assert [f.text for f in now] == ["Bob moved to Munich"]
    history = await facts_history(store, G1, user_ids=[PEOPLE["bob"]], history=True)
    by_text = {f.text: f for f in history}
    berlin = by_text["Bob lives in Berlin"]
    assert berlin.invalid_at == at - timedelta(days=7)
    assert berlin.expired_at is not None
    assert berlin.superseded_by == p.facts["bob_munich"]
    was = await facts_history(store, G1, user_ids=[PEOPLE["bob"]], at=T0 + timedelta(days=2))
    assert [f.text for f in was] == ["Bob lives in Berlin"]


async def test_members_by_name_are_guild_members(store: GraphStore) -> None:
    await populate(store)
    found = await members_by_name(store, G1, ["Frank", "Heather", "Dave"])
    assert sorted(u.name for u in found) == ["dave"]  # Frank never wrote in the guild
    assert [u.name for u in await members_by_name(store, G2, ["alice"])] == ["alice"]
