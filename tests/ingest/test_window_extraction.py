"""An opted-out member mentioned by someone else: the mention never reaches the LLM."""

from __future__ import annotations

from graph.store import GraphStore
from tests.support.prompt_reader import prompt_of
from tests.support.scripted import ALICE, BOB, MALLORY, Room, answer, openai_llm
from tests.support.scripted_llm import ScriptedLLMServer


async def test_mentions_of_an_opted_out_member_are_masked_in_the_prompt(store: GraphStore) -> None:
    with ScriptedLLMServer() as srv:
        room = await Room(store, openai_llm(srv)).open()
        await room.consent.opt_out(MALLORY.id)
        await room.say(ALICE, f"has anyone seen <@{MALLORY.id}> lately?")
        await room.say(BOB, f"no, but <@{ALICE.id}> you owe me lunch")
        srv.push(answer("Alice asked about someone; Bob says Alice owes him lunch."))
        await room.close()
        await room.stop()
        assert srv.calls == 1
        prompt = prompt_of(srv.requests[0])
        assert MALLORY.id not in prompt and "@someone" in prompt
        assert ALICE.id in prompt
