"""What members delete or change on Discord leaves the memory: the bot's delete and edit events on
the populated graph (real ArcadeDB), and deletes kept on disk through a graph outage and a restart."""

from __future__ import annotations

from unittest import mock

import discord
from neo4j.exceptions import AuthError, ServiceUnavailable

from bot.listening import Listening
from common.settings import ContextSettings, WindowSettings
from graph.reads.facts import facts_about
from graph.store import GraphStore
from ingest.ingestor import Ingestor
from ingest.live import LiveWindows
from recall.assemble import assemble, forget_texts
from tests.bot.harness import AT, Harness
from tests.recall.test_redundant import SHELTER, gathered
from tests.support.busy_server import G1, GENERAL, PEOPLE, Populated, populate
from tests.support.discord_doubles import MockMessage, MockThread, raw_edit
from tests.support.scripted import answer, count, cypher, fact
from tests.support.scripted_llm import ScriptedLLMServer


def _message(p: Populated, text: str) -> str:
    return next(m.id for m in p.messages if m.content == text)


async def _delete(listening: Listening, message_id: str) -> None:
    await listening.on_raw_message_delete(
        discord.RawMessageDeleteEvent(data={"id": int(message_id), "channel_id": int(GENERAL), "guild_id": int(G1)})
    )


async def _left(store: GraphStore) -> str:
    """Every property value of every node and relationship, as one text: what a residue check reads."""
    rows = await cypher(store, "MATCH (n) RETURN properties(n) AS p UNION ALL MATCH ()-[r]->() RETURN properties(r) AS p")
    return "\n".join(str(v) for r in rows for v in r["p"].values())


async def test_a_sole_source_message_deleted_takes_its_fact_entity_and_summary(store: GraphStore, harness: Harness) -> None:
    p = await populate(store)
    said = _message(p, "we adopted a cat! her name is Luna")
    assemble(gathered(SHELTER), ContextSettings())  # a reply's caches hold lines, names and stems
    await _delete(harness.listening, said)
    assert forget_texts() == 0  # and nothing of what the reply's caches held stays in the process
    everything = await _left(store)
    assert "Luna" not in everything and "adopted" not in everything  # fact, entity (name, alias) and summary
    assert await count(store, "MATCH (f:Fact {uuid: $u}) RETURN count(f) AS n", u=p.facts["alice_luna"]) == 0
    assert await count(store, "MATCH (e:Entity {uuid: $u}) RETURN count(e) AS n", u=p.entities["luna"]) == 0
    assert await count(store, "MATCH (f:Fact {uuid: $u}) RETURN count(f) AS n", u=p.facts["charlie_celtics"]) == 1
    assert await count(store, "MATCH ()-[r:REPORTED_BY {message_id: $m}]->() RETURN count(r) AS n", m=said) == 0


async def test_one_of_two_sources_deleted_keeps_the_fact_with_the_other_reporter(store: GraphStore, harness: Harness) -> None:
    p = await populate(store)
    await _delete(harness.listening, _message(p, "Frank got engaged to Heather!!"))
    [fact] = await cypher(
        store,
        """MATCH (f:Fact {uuid: $u})
           RETURN COLLECT { MATCH (f)-[:REPORTED_BY]->(u:User) RETURN u.id } AS reporters,
                  COLLECT { MATCH (f)-[:FROM]->(m:Message) RETURN m.content } AS sources""",
        u=p.facts["frank_engaged"],
    )
    assert fact == {"reporters": [PEOPLE["grace"]], "sources": ["yes Frank told me he got engaged to Heather"]}


async def test_an_edit_removes_the_fact_drawn_from_the_old_text(store: GraphStore, harness: Harness) -> None:
    p = await populate(store)
    said = _message(p, "I live in Berlin btw")
    edited = MockMessage(
        id=int(said), content="I live in Lisbon now", edited_at=AT, author=harness.member("bob"), channel=harness.general
    )
    await harness.listening.on_raw_message_edit(raw_edit(edited))
    assert await count(store, "MATCH (f:Fact {uuid: $u}) RETURN count(f) AS n", u=p.facts["bob_berlin"]) == 0
    assert await count(store, "MATCH (m:Message {id: $id, content: 'I live in Lisbon now'}) RETURN count(m) AS n", id=said) == 1
    assert "Berlin" not in await _left(store)
    # The same edit again (a replay) changes nothing more; Frank's fact from the same window stays.
    await harness.listening.on_raw_message_edit(raw_edit(edited))
    assert await count(store, "MATCH (f:Fact {uuid: $u}) RETURN count(f) AS n", u=p.facts["frank_engaged"]) == 1


async def test_an_edit_replaces_the_fact(store: GraphStore, harness: Harness, llm_server: ScriptedLLMServer) -> None:
    """With an LLM, the edited text is extracted again: one call, and the new fact is recalled."""
    services = harness.bot.services
    one = services.settings.extraction.model_copy(update={"batch_messages": 1})  # the edit's window extracted at once
    services.ingestor = Ingestor(store, services.llm, one, services.settings.window)
    services.live = LiveWindows(store, services.ingestor, services.consent, WindowSettings())
    p = await populate(store)
    said = _message(p, "I live in Berlin btw")
    edited = MockMessage(
        id=int(said), content="I live in Lisbon now", edited_at=AT, author=harness.member("bob"), channel=harness.general
    )
    llm_server.push(answer("Bob lives in Lisbon.", facts=[fact("Bob lives in Lisbon", about=["U1"], reported_by=["U1"], source=["m1"])]))  # fmt: skip
    for _ in range(2):  # the second time a replay: no call
        await harness.listening.on_raw_message_edit(raw_edit(edited))
        await services.live.drain()
    assert llm_server.calls == 1
    about_bob = [f.text for f in await facts_about(store, G1, user_ids=[PEOPLE["bob"]])]
    assert "Bob lives in Lisbon" in about_bob and "Bob lives in Berlin" not in about_bob


async def test_a_delete_during_an_outage_survives_a_restart_and_is_applied(store: GraphStore, harness: Harness) -> None:
    p = await populate(store)
    said = _message(p, "we adopted a cat! her name is Luna")
    down = ServiceUnavailable("the engine is gone")
    with mock.patch.object(store.runner, "write", side_effect=down), mock.patch.object(store.runner, "read", side_effect=down):
        await _delete(harness.listening, said)  # no exception reaches discord.py
        assert harness.listening.changes.pending.load() == [{"op": "delete", "id": said}]
        await harness.listening.changes.apply_pending()  # the retry loop while it is still down
    assert await count(store, "MATCH (m:Message {id: $id}) RETURN count(m) AS n", id=said) == 1

    restarted = Listening(harness.bot)  # a new process: nothing in memory, the file on disk
    assert await restarted.changes.apply_pending() == 1
    assert await count(store, "MATCH (m:Message {id: $id}) RETURN count(m) AS n", id=said) == 0
    assert await count(store, "MATCH (f:Fact {uuid: $u}) RETURN count(f) AS n", u=p.facts["alice_luna"]) == 0
    assert restarted.changes.pending.load() == []


async def test_a_delete_while_the_engine_refuses_us_waits_for_it(store: GraphStore, harness: Harness) -> None:
    """An engine that refuses our credentials (a password changed under the bot) cannot be reached either: the
    delete waits on disk through every retry, and is applied once the engine takes us again."""
    p = await populate(store)
    said = _message(p, "we adopted a cat! her name is Luna")
    refused = AuthError("the password changed")
    with (
        mock.patch.object(store.runner, "write", side_effect=refused),
        mock.patch.object(store.runner, "read", side_effect=refused),
    ):
        await _delete(harness.listening, said)
        await harness.listening.changes.apply_pending()  # the retry loop while it still refuses us
        assert harness.listening.changes.pending.load() == [{"op": "delete", "id": said}]
    assert await harness.listening.changes.apply_pending() == 1
    assert await count(store, "MATCH (m:Message {id: $id}) RETURN count(m) AS n", id=said) == 0


async def test_a_deleted_channel_leaves_nothing_of_its_messages(store: GraphStore, harness: Harness) -> None:
    p = await populate(store)
    guild = harness.guild
    channel = mock.Mock(spec_set=["id", "guild"], id=int(GENERAL), guild=guild)
    await harness.listening.on_guild_channel_delete(channel)
    assert await count(store, "MATCH (m:Message {channel_id: $c}) RETURN count(m) AS n", c=GENERAL) == 0
    assert await count(store, "MATCH (f:Fact {uuid: $u}) RETURN count(f) AS n", u=p.facts["alice_austin"]) == 0


async def test_a_thread_deleted_while_not_in_the_cache_leaves_nothing_of_its_messages(
    store: GraphStore, harness: Harness
) -> None:
    """Discord sends a thread's deletion as a raw event whether or not the thread is cached (an archived one
    is not): it is honoured either way."""
    await populate(store)
    thread = MockThread(id=120000000000000005, name="weekend", parent=harness.general)
    said = harness.message(harness.member("bob"), "my flat key is under the blue pot", channel=thread)
    await harness.deliver(said)
    assert await count(store, "MATCH (m:Message {id: $id}) RETURN count(m) AS n", id=str(said.id)) == 1
    event = discord.RawThreadDeleteEvent({"id": str(thread.id), "type": 11, "guild_id": G1, "parent_id": GENERAL})
    await harness.listening.on_raw_thread_delete(event)
    assert await count(store, "MATCH (m:Message {channel_id: $c}) RETURN count(m) AS n", c=str(thread.id)) == 0
    assert "blue pot" not in await _left(store)
