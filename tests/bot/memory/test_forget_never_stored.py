"""A memory command from a member never stored leaves no trace of them: the command message is neither
stored nor buffered for extraction. A stored member's command is kept as any message of theirs."""

from __future__ import annotations

import pytest

from graph.store import GraphStore
from tests.bot.harness import AT, Harness
from tests.support.busy_server import PEOPLE, populate
from tests.support.scripted import count

NEWCOMER = "300000000000000078"


async def _traces(store: GraphStore, user_id: str, message_id: str) -> list[int]:
    return [
        await count(store, "MATCH (u:User {id: $id}) RETURN count(u) AS n", id=user_id),
        await count(store, "MATCH (m:Message {id: $id}) RETURN count(m) AS n", id=message_id),
        await count(store, "MATCH (:Guild)<-[:MEMBER_OF]-(u:User {id: $id}) RETURN count(u) AS n", id=user_id),
    ]


@pytest.mark.parametrize("command", ["memory export", "what do you know about Charlie?", "memory opt-in", "memory status"])
async def test_a_memory_command_of_a_member_never_stored_leaves_no_trace(
    store: GraphStore, harness: Harness, command: str
) -> None:
    await populate(store)
    newcomer = harness.member("newcomer", id=int(NEWCOMER), display_name="Newcomer")
    ask = harness.message(newcomer, command, to_bot=True, at=AT)
    await harness.deliver(ask)
    await harness.bot.services.live.flush()  # what the window buffer held is written now

    assert ask.reply.await_count == 1  # the command was answered
    assert await _traces(store, NEWCOMER, str(ask.id)) == [0, 0, 0]
    assert await count(store, "MATCH (m:Message) WHERE m.author_id = $id RETURN count(m) AS n", id=NEWCOMER) == 0


async def test_a_stored_members_command_is_kept_as_their_message(store: GraphStore, harness: Harness) -> None:
    await populate(store)
    ask = harness.message(harness.member("charlie"), "memory export", to_bot=True, at=AT)
    await harness.deliver(ask)
    await harness.bot.services.live.flush()

    assert await _traces(store, PEOPLE["charlie"], str(ask.id)) == [1, 1, 1]


async def test_a_newcomers_conversation_is_stored(store: GraphStore, harness: Harness) -> None:
    """Only commands are left out: the newcomer's first chat with the bot is recorded as usual."""
    await populate(store)
    newcomer = harness.member("newcomer", id=int(NEWCOMER), display_name="Newcomer")
    hello = harness.message(newcomer, "hello there, I just joined", at=AT)
    await harness.deliver(hello)
    await harness.bot.services.live.flush()

    assert (await _traces(store, NEWCOMER, str(hello.id)))[:2] == [1, 1]


async def test_a_newcomers_remember_is_stored(store: GraphStore, harness: Harness) -> None:
    """ "remember that ..." asks to be remembered: a newcomer's is stored like any message of theirs."""
    await populate(store)
    newcomer = harness.member("newcomer", id=int(NEWCOMER), display_name="Newcomer")
    ask = harness.message(newcomer, "remember that I play the cello", to_bot=True, at=AT)
    await harness.deliver(ask)
    await harness.bot.services.live.flush()

    assert (await _traces(store, NEWCOMER, str(ask.id)))[:2] == [1, 1]
