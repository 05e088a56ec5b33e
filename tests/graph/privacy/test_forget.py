"""Forget-me on a populated graph: the user's subgraph goes, everyone else's facts stay, no residue."""

from __future__ import annotations

from datetime import timedelta

from graph.models import EpisodeWrite
from graph.privacy.forget import forget_user
from graph.reads import context as context_reads
from graph.reads.context import FactRequest
from graph.reads.facts import facts_about, facts_history
from graph.store import GraphStore
from graph.writes.episodes import write_episode
from tests.support.busy_server import G1, G2, GENERAL, PEOPLE, T0, U, populate, recalled
from tests.support.erasure_audit import residue_everywhere


async def _all_fact_texts(store: GraphStore, guild: str) -> set[str]:
    facts = await facts_history(store, guild, user_ids=list(PEOPLE.values()), entity_uuids=[], history=True)
    return {f.text for f in facts}


async def test_forget_charlie_leaves_no_residue_and_keeps_everyone_else(store: GraphStore) -> None:
    p = await populate(store)
    # Someone else's fact that names Charlie, and one that only mentions him.
    msg = await p.say(GENERAL, "bob", "Charlie and I are going climbing on Sunday", T0 + timedelta(days=3))
    msg2 = await p.say(GENERAL, "bob", f"hey <@{PEOPLE['charlie']}> bring the rope", T0 + timedelta(days=3, seconds=5))
    key = await p.episode(GENERAL, [msg, msg2])
    await write_episode(
        store,
        EpisodeWrite(
            key=key,
            guild_id=G1,
            summary="Bob and Charlie plan climbing on Sunday.",
            facts=(
                p.fact("bob_climbing", "Bob is going climbing with Charlie on Sunday", [U("bob")], msg, mentions=[U("charlie")]),
                p.fact("bob_rope", "Bob owns a climbing rope", [U("bob")], msg2, mentions=[U("charlie")]),
            ),
        ),
    )
    before_g1 = await _all_fact_texts(store, G1)
    before_g2 = await _all_fact_texts(store, G2)

    report = await forget_user(store, PEOPLE["charlie"])

    assert report.deleted["User"] == 1
    # Celtics fan, the sister in Austin (only he reported it), climbing and the rope (both mention him: his by edge)
    assert report.deleted["Fact"] == 4
    assert report.deleted["Entity"] == 2  # Charlie's sister and the Celtics, left with no facts
    assert report.deleted["Message"] == 3  # two in the Book Club, one in the climbing gym
    assert report.residue == []
    assert await residue_everywhere(store, PEOPLE["charlie"]) == []
    after_g1 = await _all_fact_texts(store, G1)
    assert before_g1 - after_g1 == {
        "Charlie is a Celtics fan",
        "Bob is going climbing with Charlie on Sunday",
        "Bob owns a climbing rope",
    }
    assert await _all_fact_texts(store, G2) == before_g2
    alice = await facts_about(store, G1, user_ids=[PEOPLE["alice"]], now=T0 + timedelta(days=3))
    assert [f.uuid for f in alice] == [p.facts["alice_austin"], p.facts["alice_luna"]]
    after = await context_reads.reply_facts(
        store,
        FactRequest(
            G1,
            author_id=PEOPLE["charlie"],
            mentioned_ids=[],
            names=[],
            entity_keys=[],
            text="",
            skip_ids=[],
            now=T0 + timedelta(days=3),
        ),
    )
    assert after["author"] == [] and after["linked"] == []
    summaries = (
        await context_reads.conversation(
            store, G1, GENERAL, author_id=PEOPLE["bob"], at=T0 + timedelta(days=10), episodes=10, messages=50
        )
    ).summaries
    assert not any("Charlie" in s for _, s in summaries)  # a conversation he was in loses its summary, built from his words
    later = T0 + timedelta(days=4)
    found = await recalled(store, G1, GENERAL, "Charlie Celtics game climbing rope", before=later)
    assert found and all(m.author_id != PEOPLE["charlie"] and PEOPLE["charlie"] not in m.content for m in found)
    # "Charlie" is a given name no one else in G1 carries: it stands for him in Bob's words, and only there
    rows = await store.driver.execute_query(
        "MATCH (m:Message) WHERE m.id IN $ids RETURN m.id AS id, m.content AS content",
        {"ids": [msg.id, msg2.id]},
        database_=store.engine.database,
    )
    contents = {r["id"]: r["content"] for r in rows.records}
    assert contents == {msg.id: "[forgotten] and I are going climbing on Sunday", msg2.id: "hey [forgotten] bring the rope"}


async def test_forget_in_one_guild_keeps_the_other(store: GraphStore) -> None:
    await populate(store)
    report = await forget_user(store, PEOPLE["alice"], guild_id=G1)
    assert report.deleted["User"] == 0  # Alice still has a life in the climbing gym
    assert await facts_about(store, G1, user_ids=[PEOPLE["alice"]]) == []
    assert [f.text for f in await facts_about(store, G2, user_ids=[PEOPLE["alice"]])] == ["Alice is vegetarian"]
