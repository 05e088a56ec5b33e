"""Recording messages in batches (graph/writes/messages.py record_messages): new ids are created with their SENT edge, a
stored id is an edit or a refusal, a batch may hold the same id twice, and replies link inside a batch and
to a parent recorded later."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from graph.models import Guild, Message, User
from graph.store import GraphStore
from graph.writes.discord_records import upsert_guild, upsert_users
from graph.writes.messages import record_messages

GUILD = "834000000000000001"
OTHER = "834000000000000002"
CHAN = "834100000000000001"
ANN = User(id="834200000000000001", name="ann", display_name="Ann")
BEN = User(id="834200000000000002", name="ben", display_name="Ben")
T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)


def msg(n: int, who: User = ANN, **kw: object) -> Message:
    fields: dict[str, object] = dict(id=f"8343000000000{n:05d}", guild_id=GUILD, channel_id=CHAN, author_id=who.id,
                                     content=f"message {n}", created_at=T0 + timedelta(seconds=n))  # fmt: skip
    return Message(**(fields | kw))


async def read(store: GraphStore, text: str, **params: object) -> list[dict[str, object]]:
    records, _, _ = await store.driver.execute_query(text, params, database_=store.engine.database)
    return [r.data() for r in records]


async def setup(store: GraphStore) -> None:
    await upsert_guild(store, Guild(id=GUILD, name="g"))
    await upsert_users(store, [ANN, BEN], GUILD)


async def test_a_batch_creates_each_message_once_with_its_author(store: GraphStore) -> None:
    await setup(store)
    batch = [msg(n, ANN if n % 2 else BEN) for n in range(50)]
    assert await record_messages(store, batch) == []
    assert await record_messages(store, batch) == []  # again: nothing new, nothing refused
    rows = await read(store, "MATCH (u:User)-[:SENT]->(m:Message) WHERE m.guild_id = $g RETURN u.id AS u, m.id AS m", g=GUILD)
    assert sorted((r["m"], r["u"]) for r in rows) == sorted((m.id, m.author_id) for m in batch)
    buffered = await read(store, "MATCH (m:Message {buffered: true}) WHERE m.guild_id = $g RETURN count(m) AS n", g=GUILD)
    assert buffered == [{"n": 50}]


async def test_the_same_id_twice_in_a_batch_is_one_message_with_the_later_edit(store: GraphStore) -> None:
    await setup(store)
    first = msg(1)
    edited = msg(1, content="message 1, edited", edited_at=T0 + timedelta(minutes=5))
    assert await record_messages(store, [first, edited, msg(2)]) == []
    rows = await read(store, "MATCH (m:Message {id: $id}) RETURN m.content AS c", id=first.id)
    assert rows == [{"c": "message 1, edited"}]
    older = msg(1, content="message 1, older edit", edited_at=T0 + timedelta(minutes=1))
    assert await record_messages(store, [older]) == []  # an edit older than the stored one does not apply
    assert await read(store, "MATCH (m:Message {id: $id}) RETURN m.content AS c", id=first.id) == rows


async def test_an_id_of_another_author_or_guild_is_refused_in_the_batch_and_later(store: GraphStore) -> None:
    await setup(store)
    await upsert_guild(store, Guild(id=OTHER, name="o"))
    mine = msg(7)
    theirs = msg(7, BEN, content="not ann's")
    assert await record_messages(store, [mine, theirs]) == [mine.id]
    assert await record_messages(store, [msg(7, guild_id=OTHER)]) == [mine.id]
    rows = await read(
        store, "MATCH (u:User)-[:SENT]->(m:Message {id: $id}) RETURN u.id AS u, m.content AS c, m.guild_id AS g", id=mine.id
    )
    assert rows == [{"u": ANN.id, "c": "message 7", "g": GUILD}]


async def test_replies_link_within_a_batch_and_to_a_parent_recorded_later(store: GraphStore) -> None:
    await setup(store)
    parent, child = msg(1), msg(2, BEN, reply_to_id=msg(1).id)
    late_child = msg(4, reply_to_id=msg(3).id)
    assert await record_messages(store, [parent, child, late_child]) == []
    assert await record_messages(store, [msg(3, BEN), late_child]) == []  # the window records it again
    await record_messages(store, [late_child])  # linked once
    rows = await read(
        store, "MATCH (a:Message)-[:REPLIES_TO]->(b:Message) WHERE a.guild_id = $g RETURN a.id AS a, b.id AS b", g=GUILD
    )
    assert sorted((r["a"], r["b"]) for r in rows) == [(child.id, parent.id), (late_child.id, msg(3).id)]
