"""Forget-me reaches what is the member's without being their own words: facts about what is theirs alone
(an entity linked only to them), others' replies to their messages and the episode keys built from their
message ids; a given name only he carries in the guild ("Charlie") stands for him in what others wrote."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from graph.models import EpisodeWrite
from graph.privacy.forget import forget_user
from graph.privacy.guards.consent import opt_out
from graph.store import GraphStore
from graph.writes.discord_records import upsert_channel, upsert_guild
from graph.writes.episodes import write_episode
from graph.writes.messages import record_messages
from tests.support.busy_server import G1, GENERAL, PEOPLE, T0, E, U, populate

CHARLIE = PEOPLE["charlie"]


async def _one(store: GraphStore, cypher: str, **params: Any) -> list[dict[str, Any]]:
    result = await store.driver.execute_query(cypher, params, database_=store.engine.database)
    return [dict(r) for r in result.records]


async def test_a_fact_about_charlies_sister_told_by_bob_goes_and_his_name_is_redacted(store: GraphStore) -> None:
    p = await populate(store)
    said = await p.say(GENERAL, "bob", "btw Charlie's sister is a nurse now", T0 + timedelta(days=3))
    other = await p.say(GENERAL, "bob", "and the Charlie's Angels remake is out", T0 + timedelta(days=3, seconds=5))
    key = await p.episode(GENERAL, [said, other])
    team = p.entity("team", "Boston Celtics", "organization", ("Charlie's team", "the Celts"))
    await write_episode(
        store,
        EpisodeWrite(
            key=key,
            guild_id=G1,
            entities=(team,),
            facts=(
                # about the sister entity only: not linked to Charlie's account at all
                p.fact("sister_nurse", "Charlie's sister is a nurse", [E(p.entities["sister"])], said),
                p.fact("team_won", "The Celts won the final", [E(team.uuid)], other),
                p.fact("bob_berlin2", "Bob moved within Berlin", [U("bob")], other),
            ),
        ),
    )

    report = await forget_user(store, CHARLIE)

    assert report.residue == []
    texts = {r["text"] for r in await _one(store, "MATCH (f:Fact) RETURN f.text AS text")}
    assert "Charlie's sister is a nurse" not in texts  # about his sister, linked to him alone
    assert {"The Celts won the final", "Bob moved within Berlin"} <= texts
    [row] = await _one(store, "MATCH (e:Entity {uuid: $u}) RETURN e.aliases AS aliases", u=team.uuid)
    assert row["aliases"] == ["[forgotten]'s team", "the Celts"]  # a given name no one else in G1 carries: it is him


async def test_replies_to_and_episode_keys_lose_charlies_message_ids(store: GraphStore) -> None:
    p = await populate(store)
    first = await p.say(GENERAL, "charlie", "anyone up for bouldering", T0 + timedelta(days=4))
    answer = await p.say(GENERAL, "bob", "me!", T0 + timedelta(days=4, seconds=9), reply_to=first.id)
    await p.episode(GENERAL, [first, answer])

    report = await forget_user(store, CHARLIE)

    assert report.residue == []
    [row] = await _one(store, "MATCH (m:Message {id: $id}) RETURN m.reply_to_id AS r", id=answer.id)
    assert row["r"] is None
    keys = [r["k"] for r in await _one(store, "MATCH (e:Episode) RETURN e.key AS k")]
    assert not any(first.id in k for k in keys)
    assert len(keys) == len(set(keys))


async def test_forget_everywhere_takes_the_dm_space_as_the_operator_command_does(store: GraphStore) -> None:
    from graph.models import Channel, ChannelKind, Guild, Message, dm_scope

    await populate(store)
    scope = dm_scope(CHARLIE)
    await upsert_guild(store, Guild(id=scope, name="DM"))
    await upsert_channel(store, Channel(id="120000000000000009", guild_id=scope, name="dm", kind=ChannelKind.DM))
    await record_messages(
        store,
        [
            Message(
                id="520000000000000001",
                guild_id=scope,
                channel_id="120000000000000009",
                author_id=CHARLIE,
                content="my cat is called Tom",
                created_at=T0,
            )
        ],  # fmt: skip
    )
    await opt_out(store, CHARLIE)  # `grapevine forget` opts out first, then forgets

    report = await forget_user(store, CHARLIE)

    assert report.clean, (report.residue, report.files_failed)
    left = await _one(store, "MATCH (n) WHERE n.guild_id = $g OR n.id = $g RETURN count(n) AS n", g=scope)
    assert left == [{"n": 0}]


async def test_a_member_export_holds_their_facts_messages_and_summaries(store: GraphStore) -> None:
    from graph.privacy.export import export_member

    p = await populate(store)
    data = await export_member(store, CHARLIE)

    assert data is not None and data["name"] == "charlie"
    texts = {f["text"] for f in data["facts"]}
    assert texts == {"Charlie is a Celtics fan", "Charlie's sister lives in Austin"}  # about him, and one he reported
    sister = next(f for f in data["facts"] if f["text"].startswith("Charlie's sister"))
    assert sister["mentions_them"] and not sister["about_them"] and sister["reports"][0]["by"] == "you"
    assert sister["valid_at"] and sister["invalid_at"] is None
    mine = [m for m in p.messages if m.author_id == CHARLIE]
    assert sorted(m["id"] for m in data["messages"]) == sorted(m.id for m in mine)
    assert any("Celtics" in s["summary"] for s in data["summaries"])
    assert await export_member(store, "399999999999999998") is None
