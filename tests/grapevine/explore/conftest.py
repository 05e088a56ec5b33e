"""The explorer's test graph: the busy guild of tests/support/busy_server.py, plus Bob's move from
Berlin to Munich (a supersession) and a member whose name and fact are markup (an XSS probe)."""

from __future__ import annotations

from datetime import timedelta

from graph.models import EpisodeWrite, Message, NodeRef, User
from graph.store import GraphStore
from graph.writes.discord_records import upsert_users
from graph.writes.episodes import write_episode
from graph.writes.messages import record_messages
from tests.support.busy_server import G1, GENERAL, MUNICH_AT, Populated, move_bob_to_munich, populate

MARKUP_ID = "300000000000000666"
MARKUP_NAME = '<img src=x onerror="window.__xss=1">'
MARKUP_FACT = "<script>window.__xss=2</script> likes <b>bold</b> text"
TOKEN = "test-token-0123456789abcdef"


async def explore_graph(store: GraphStore) -> Populated:
    """The populated guilds, Bob's Berlin -> Munich supersession, and the markup member."""
    p = await populate(store)
    assert (await move_bob_to_munich(p)).superseded == 1
    await upsert_users(store, [User(id=MARKUP_ID, name="markup", display_name=MARKUP_NAME)])
    said = Message(
        id=p.mid(),
        guild_id=G1,
        channel_id=GENERAL,
        author_id=MARKUP_ID,
        content=MARKUP_FACT,
        created_at=MUNICH_AT + timedelta(hours=3),
    )
    await record_messages(store, [said])
    key = await p.episode(GENERAL, [said])
    await write_episode(
        store,
        EpisodeWrite(
            key=key,
            guild_id=G1,
            summary="a member wrote markup",
            facts=(p.fact("markup", MARKUP_FACT, [NodeRef(kind="user", id=MARKUP_ID)], said, importance=4),),
        ),
    )
    return p
