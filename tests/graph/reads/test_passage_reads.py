"""The passages of a reply's recalled matches (graph/reads/context.py's `passage_turns`, queries/context/passages.cypher): the turns
around each match in its window, and only those the reply's channel may show: never a private channel's turn, even
when a window holds one, never a turn said after the reply, never an opted-out member's."""

from __future__ import annotations

import uuid
from datetime import timedelta

from common.settings import ContextSettings
from graph.models import Channel, EpisodeClose, Message
from graph.privacy.channels import set_visibility
from graph.privacy.forget import forget_user
from graph.privacy.guards.consent import opt_out
from graph.reads.context import passage_turns
from graph.store import GraphStore
from graph.writes.discord_records import upsert_channel
from graph.writes.episodes import close_episode
from recall.assemble import ContextRequest
from recall.gather import build_context
from tests.support.busy_server import BOT, G1, GENERAL, PEOPLE, T0, Populated, in_general

STAFF = "110000000000000009"
ASKED = T0 + timedelta(days=2)
SETTINGS = ContextSettings(channel_messages=0, channel_episodes=0)  # only what is recalled for the question
QUESTION = "What did Bob get at work?"


async def promotion(store: GraphStore) -> tuple[Populated, list[Message]]:
    """Bob says he got promoted; two turns later, what to: the answer a chunk holds whole. Meanwhile, in a private
    channel, a window of its own about the same promotion."""
    p = await in_general(store, "alice", "bob", "judy")
    await upsert_channel(store, Channel(id=STAFF, guild_id=G1, name="staff"))
    await set_visibility(store, G1, STAFF, "restricted")
    at = [T0 + timedelta(minutes=i) for i in range(6)]
    talk = [
        await p.say(GENERAL, "alice", "how was your week?", at[0]),
        await p.say(GENERAL, "bob", "great, I got promoted at work", at[1]),
        await p.say(GENERAL, "alice", "wow", at[2]),
        await p.say(GENERAL, "alice", "congratulations, to what?", at[3]),
        await p.say(GENERAL, "bob", "assistant manager, starting monday", at[4]),
        await p.say(GENERAL, "alice", "amazing", at[5]),
    ]
    await close_episode(store, EpisodeClose(
        key=f"{GENERAL}:{talk[0].id}:{talk[-1].id}", uuid=uuid.uuid4().hex, guild_id=G1, channel_id=GENERAL,
        started_at=at[0], ended_at=at[-1], message_ids=tuple(m.id for m in talk),
        participant_ids=(PEOPLE["alice"], PEOPLE["bob"]),
    ))  # fmt: skip
    staff = [
        await p.say(STAFF, "alice", "Bob got promoted at work, keep it quiet", at[2]),
        await p.say(STAFF, "judy", "the salary bands are confidential", at[2] + timedelta(seconds=10)),
    ]
    await p.episode(STAFF, staff)
    return p, [*talk, *staff]


def ask(text: str) -> ContextRequest:
    return ContextRequest(G1, GENERAL, PEOPLE["judy"], text, None, ASKED, bot_user_id=BOT)


async def test_a_match_brings_its_window_turns_of_the_channel_nearest_first(store: GraphStore) -> None:
    _, talk = await promotion(store)
    found = await passage_turns(store, G1, GENERAL, ids=[talk[1].id], at=ASKED, reach=3)
    assert [(d, m.id) for d, m in found[talk[1].id]] == [(-1, talk[0].id), (1, talk[2].id), (2, talk[3].id), (3, talk[4].id)]
    early = await passage_turns(store, G1, GENERAL, ids=[talk[1].id], at=talk[4].created_at, reach=3)
    assert [m.id for _, m in early[talk[1].id]] == [talk[0].id, talk[2].id, talk[3].id]  # nothing said after the reply


async def test_a_private_channels_turn_never_joins_a_reply_elsewhere(store: GraphStore) -> None:
    _, talk = await promotion(store)
    told, secret = talk[6], talk[7]
    assert await passage_turns(store, G1, GENERAL, ids=[told.id], at=ASKED, reach=3) == {}  # asked from #general
    assert [m.id for _, m in (await passage_turns(store, G1, STAFF, ids=[told.id], at=ASKED, reach=3))[told.id]] == [secret.id]
    ctx = await build_context(store, ask(QUESTION), SETTINGS)
    assert talk[4].id in ctx.message_ids  # the answer three turns on comes with its match
    assert not {told.id, secret.id} & ctx.message_ids and "confidential" not in ctx.render()


async def test_an_opted_out_members_turn_never_joins_a_reply(store: GraphStore) -> None:
    _, talk = await promotion(store)
    await forget_user(store, PEOPLE["bob"])
    await opt_out(store, PEOPLE["bob"])
    found = await passage_turns(store, G1, GENERAL, ids=[talk[3].id], at=ASKED, reach=3)
    assert {m.author_id for turns in found.values() for _, m in turns} <= {PEOPLE["alice"]}
    ctx = await build_context(store, ask(QUESTION), SETTINGS)
    assert not {talk[1].id, talk[4].id} & ctx.message_ids and "assistant manager" not in ctx.render()
