"""Edits and deletes of messages (graph/writes/messages.py) as Discord makes them, seen through the conversation read."""

from __future__ import annotations

from datetime import timedelta

from graph.reads import context as context_reads
from graph.store import GraphStore
from graph.writes.messages import delete_message, edit_message
from tests.support.busy_server import G1, GENERAL, PEOPLE, T0, populate


async def test_edit_and_delete_follow_discord(store: GraphStore) -> None:
    p = await populate(store)
    msg = p.messages[0]
    assert await edit_message(store, msg.id, "where did you move, Alice?", T0 + timedelta(minutes=1))
    talk = await context_reads.conversation(
        store, G1, GENERAL, author_id=PEOPLE["bob"], at=T0 + timedelta(minutes=2), reply_to_id=msg.id
    )
    assert [m.content for m in talk.chain] == ["where did you move, Alice?"]
    assert await delete_message(store, msg.id)
    talk = await context_reads.conversation(
        store, G1, GENERAL, author_id=PEOPLE["bob"], at=T0 + timedelta(minutes=2), reply_to_id=msg.id
    )
    assert talk.chain == () and msg.id not in {m.id for m in talk.recent}
    assert not await delete_message(store, msg.id)
