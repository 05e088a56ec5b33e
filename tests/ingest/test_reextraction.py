"""An edit after extraction replaces the fact: the edited message alone is extracted again, with the
episode's other messages as context, into the same episode; once, durably, and never in an `off` channel.
Real ArcadeDB, the live windows as the bot drives them, the real openai client against the scripted server."""

from __future__ import annotations

from datetime import timedelta

from graph.privacy import channels
from graph.reads.facts import facts_about
from graph.store import GraphStore
from tests.support.prompt_reader import Prompt
from tests.support.scripted import ALICE, BOB, GENERAL, GUILD, Room, answer, count, cypher, fact, openai_llm
from tests.support.scripted_llm import ScriptedLLMServer

MADRID = answer("Alice said she lives in Madrid.", facts=[fact("Alice lives in Madrid", about=["U1"], reported_by=["U1"], source=["m1"], category="location")])  # fmt: skip
LISBON = answer("Alice lives in Lisbon.", facts=[fact("Alice lives in Lisbon", about=["U1"], reported_by=["U1"], source=["m1"], category="location")])  # fmt: skip


async def _madrid(room: Room, srv: ScriptedLLMServer) -> str:
    said = await room.say(ALICE, "I live in Madrid")
    await room.say(BOB, "nice, I climbed near there last year")
    srv.push(MADRID)
    await room.close()
    assert srv.calls == 1
    return said.id


async def _facts(store: GraphStore) -> list[str]:
    return sorted(f.text for f in await facts_about(store, GUILD, user_ids=[ALICE.id]))


async def test_an_edit_replaces_the_fact_with_one_call_and_a_replay_makes_none(store: GraphStore) -> None:
    with ScriptedLLMServer() as srv:
        room = await Room(store, openai_llm(srv)).open()
        said = await _madrid(room, srv)
        assert await _facts(store) == ["Alice lives in Madrid"]
        edited_at = room.clock.advance(600)
        srv.push(LISBON)
        await room.live.on_edit(said, "I live in Lisbon", edited_at)
        await room.live.drain()
        assert srv.calls == 2  # exactly one more call
        assert await _facts(store) == ["Alice lives in Lisbon"]
        prompt = Prompt(srv.requests[1])
        assert [m.content for m in prompt.messages.values()] == ["I live in Lisbon"]  # only the changed message
        assert [m.content for m in prompt.context.values()] == ["nice, I climbed near there last year"]
        [row] = await cypher(
            store,
            """MATCH (f:Fact {text: 'Alice lives in Lisbon'})-[:EXTRACTED_FROM]->(e:Episode)<-[:IN_EPISODE]-(m:Message {id: $id})
               RETURN e.key AS key, COLLECT { MATCH (f)-[:FROM]->(s:Message) RETURN s.id } AS sources,
                      COLLECT { MATCH (f)-[:REPORTED_BY]->(u:User) RETURN u.id } AS reporters""",
            id=said,
        )
        assert row["sources"] == [said] and row["reporters"] == [ALICE.id]
        assert await count(store, "MATCH (e:Episode) RETURN count(e) AS n") == 1  # the same episode, no new one
        assert await count(store, "MATCH (n) WHERE n.reextract IS NOT NULL RETURN count(n) AS n") == 0

        await room.live.on_edit(said, "I live in Lisbon", edited_at)  # the same edit again
        await room.live.drain()
        assert await room.ingestor.process_backlog() is not None
        assert srv.calls == 2 and await _facts(store) == ["Alice lives in Lisbon"]
        await room.stop()


async def test_an_edit_waiting_for_the_llm_is_extracted_after_a_restart(store: GraphStore) -> None:
    with ScriptedLLMServer() as srv:
        room = await Room(store, openai_llm(srv)).open()
        said = await _madrid(room, srv)
        await room.restart(llm=None)  # no LLM now: the edit waits in the graph
        await room.live.on_edit(said, "I live in Lisbon", room.clock.advance(600))
        await room.live.drain()
        assert await _facts(store) == [] and srv.calls == 1
        await room.restart(llm=openai_llm(srv))  # a new process finds it in the backlog
        srv.push(LISBON)
        result = await room.ingestor.process_backlog()
        assert result.reextracted == 1 and srv.calls == 2
        assert await _facts(store) == ["Alice lives in Lisbon"]
        await room.stop()


async def test_an_edit_in_an_off_channel_extracts_nothing(store: GraphStore) -> None:
    with ScriptedLLMServer() as srv:
        room = await Room(store, openai_llm(srv)).open()
        said = await _madrid(room, srv)
        assert await channels.set_mode(store, GUILD, GENERAL, "off")
        await room.live.on_edit(said, "I live in Lisbon", room.clock.advance(600))
        await room.live.drain()
        assert srv.calls == 1 and await _facts(store) == []
        assert await count(store, "MATCH (n) WHERE n.reextract IS NOT NULL RETURN count(n) AS n") == 0
        await room.stop()


async def test_an_edit_of_an_opted_out_member_extracts_nothing(store: GraphStore) -> None:
    with ScriptedLLMServer() as srv:
        room = await Room(store, openai_llm(srv)).open()
        said = await _madrid(room, srv)
        await room.consent.opt_out(ALICE.id)
        await room.live.on_edit(said, "I live in Lisbon", room.clock.advance(timedelta(minutes=10).total_seconds()))
        await room.live.drain()
        assert srv.calls == 1 and await _facts(store) == []
        await room.stop()
