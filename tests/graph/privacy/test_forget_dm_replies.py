"""A forget everywhere takes the member's DM space, the bot's answers there too: a message elsewhere that replied to
one of them (Discord lets a reply reference a message of another channel) stops pointing at it, as replies to the
member's own messages do."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from graph.models import Channel, ChannelKind, Guild, Message, User, dm_scope
from graph.privacy.forget import forget_user
from graph.store import GraphStore
from graph.writes.discord_records import upsert_channel, upsert_guild
from graph.writes.messages import record_batch
from tests.support.busy_server import GENERAL, PEOPLE, T0, populate

CHARLIE = PEOPLE["charlie"]
BOT = "870000000000000001"


async def test_a_reply_elsewhere_to_the_bots_answer_in_their_dms_loses_its_pointer(store: GraphStore) -> None:
    p = await populate(store)
    space, dm = dm_scope(CHARLIE), "120000000000000009"
    await upsert_guild(store, Guild(id=space, name="DM"))
    await upsert_channel(store, Channel(id=dm, guild_id=space, name="dm", kind=ChannelKind.DM))
    bot = User(id=BOT, name="grapevine", display_name="grapevine", is_bot=True)
    answer = Message(id="520000000000000001", guild_id=space, channel_id=dm, author_id=BOT, content="noted, the cat is Tom",
                     created_at=T0)  # fmt: skip
    await record_batch(store, [answer], {BOT: bot}, {})
    reply = await p.say(GENERAL, "bob", "that's what it told me too", T0 + timedelta(minutes=1), reply_to=answer.id)

    report = await forget_user(store, CHARLIE)

    assert report.clean, (report.residue, report.files_failed)
    found = await store.driver.execute_query(
        "MATCH (m:Message {id: $id}) RETURN m.reply_to_id AS r", {"id": reply.id}, database_=store.engine.database
    )
    rows: list[dict[str, Any]] = [dict(r) for r in found.records]
    assert rows == [{"r": None}]
