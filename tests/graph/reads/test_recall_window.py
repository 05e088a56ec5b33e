"""The recalled-message search of a reply's conversation read (queries/context/recalled.cypher) looks only at
the channel's recent messages: its last `RecallTuning.span_messages` messages within `RecallTuning.span` before the reply, so its cost
follows the channel's recent traffic, never its history; matching is by whole word, in any case."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from common.settings import RecallTuning
from graph.models import Channel, Guild, Message, User
from graph.store import GraphStore
from graph.writes.discord_records import upsert_channel, upsert_guild, upsert_users
from graph.writes.messages import record_messages
from tests.support.busy_server import recalled

G, CH, OTHER = "835000000000000001", "835100000000000001", "835100000000000002"
ANN = User(id="835200000000000001", name="ann", display_name="Ann")
NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def msg(n: int, text: str, at: datetime, channel: str = CH) -> Message:
    return Message(id=f"8353000000000{n:05d}", guild_id=G, channel_id=channel, author_id=ANN.id, content=text, created_at=at)


async def setup(store: GraphStore, messages: list[Message]) -> None:
    await upsert_guild(store, Guild(id=G, name="g"))
    for cid in (CH, OTHER):
        await upsert_channel(store, Channel(id=cid, guild_id=G, name=cid))
    await upsert_users(store, [ANN], G)
    assert await record_messages(store, messages) == []


async def test_only_the_channels_last_messages_are_searched(store: GraphStore) -> None:
    old = [msg(n, f"kayak trip number {n}", NOW - timedelta(hours=30 - n)) for n in range(20)]
    await setup(store, old)
    found = await recalled(store, G, CH, "anyone up for a kayak trip?", before=NOW, tuning=RecallTuning(span_messages=10))
    assert sorted(m.id for m in found) == sorted(m.id for m in old[10:])  # the last ten; older ones are not read


async def test_a_message_older_than_the_span_is_not_recalled(store: GraphStore) -> None:
    await setup(
        store,
        [
            msg(1, "the kayak club meets on fridays", NOW - RecallTuning().span - timedelta(hours=1)),
            msg(2, "Kayak rental is cheap now", NOW - timedelta(days=2)),
            msg(3, "kayaking is not the word asked for", NOW - timedelta(days=1)),
            msg(4, "kayak in the other channel", NOW - timedelta(days=1), channel=OTHER),
            msg(5, "a kayak after the reply", NOW + timedelta(minutes=1)),
        ],
    )
    found = await recalled(store, G, CH, "kayak", before=NOW)
    assert [m.content for m in found] == ["Kayak rental is cheap now"]


async def test_more_words_matched_rank_first_then_newest(store: GraphStore) -> None:
    await setup(
        store,
        [
            msg(1, "kayak and tent for the trip", NOW - timedelta(days=3)),
            msg(2, "my tent leaks", NOW - timedelta(days=2)),
            msg(3, "kayak? sure", NOW - timedelta(days=1)),
            msg(4, "nothing to see (regex chars .* [x])", NOW - timedelta(hours=1)),
        ],
    )
    alone = RecallTuning(passage=False)
    found = await recalled(store, G, CH, "kayak tent .* [x]", before=NOW, tuning=alone)
    # the pattern characters are no words (and "x" too short to be one): they match nothing, break nothing
    assert [m.content for m in found] == ["kayak and tent for the trip", "kayak? sure", "my tent leaks"]

    # scored as a passage, "kayak? sure" also holds the words of the message before it ("my tent leaks"): two words
    # matched and newer, so it ranks first
    found = await recalled(store, G, CH, "kayak tent .* [x]", before=NOW)
    assert [m.content for m in found][:2] == ["kayak? sure", "my tent leaks"]
