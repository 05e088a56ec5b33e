"""A quiet channel's older messages are recalled. The conversation read looks for matching messages
only within `RecallTuning.span` before the reply; what was said in the channel's earlier windows (two months
ago, in a channel that talks a few times a month) is found through them (`RecallTuning.older_episodes`), a bounded
number of windows back."""

from __future__ import annotations

from datetime import timedelta

from common.settings import ContextSettings, RecallTuning
from graph.models import Recalled
from graph.reads import context as context_reads
from graph.store import GraphStore
from recall.assemble import ContextRequest
from recall.gather import build_context
from tests.support.busy_server import BOT, G1, GENERAL, PEOPLE, T0, Populated, in_general, recalled

ASKED = T0 + RecallTuning().span + timedelta(days=30)  # two months after the first talk


async def quiet_channel(store: GraphStore) -> Populated:
    """Bob's kayak in a window two months before the question, then one about the weather last week."""
    p = await in_general(store, "alice", "bob", "judy")
    old = [
        await p.say(GENERAL, "alice", "did you ever get that boat?", T0),
        await p.say(GENERAL, "bob", "yes, a red kayak, I paddle it on Lake Tahoe", T0 + timedelta(minutes=1)),
    ]
    await p.episode(GENERAL, old)
    last_week = ASKED - timedelta(days=7)
    new = [
        await p.say(GENERAL, "alice", "rainy week again", last_week),
        await p.say(GENERAL, "bob", "I stayed in and read", last_week + timedelta(minutes=1)),
    ]
    await p.episode(GENERAL, new)
    return p


def ask(text: str) -> ContextRequest:
    return ContextRequest(G1, GENERAL, PEOPLE["judy"], text, None, ASKED, bot_user_id=BOT)


async def test_a_quiet_channels_older_window_is_recalled(store: GraphStore) -> None:
    p = await quiet_channel(store)
    question = "what colour is Bob's kayak?"
    kayak = p.messages[1].id
    assert kayak not in {m.id for m in await recalled(store, G1, GENERAL, question, before=ASKED)}  # older than the span
    settings = ContextSettings(channel_messages=0, channel_episodes=0)
    ctx = await build_context(store, ask(question), settings)
    assert kayak in ctx.part("recalled").ids
    off = RecallTuning(older_episodes=0)  # the lever off: the span alone
    assert kayak not in (await build_context(store, ask(question), settings, tuning=off)).message_ids


async def test_older_windows_are_searched_a_bounded_number_back(store: GraphStore) -> None:
    p = await quiet_channel(store)
    for day in range(1, 4):  # three more windows after the kayak's, all before the span
        at = T0 + timedelta(days=day)
        await p.episode(GENERAL, [await p.say(GENERAL, "alice", f"nothing new on day {day}", at)])
    found = await _older(store, GENERAL, "Bob's kayak, day", 3)
    assert [m.content for m in found.matches] == [f"nothing new on day {d}" for d in (3, 2, 1)]  # the kayak's window is a 4th
    found = await _older(store, GENERAL, "Bob's kayak", 4)
    assert [m.id for m in found.matches] == [p.messages[1].id]
    assert (await _older(store, "another-channel", "kayak", 4)).matches == ()
    assert (await _older(store, GENERAL, "Bob's kayak", 0)).matches == ()  # the lever off


async def _older(store: GraphStore, channel: str, text: str, windows: int) -> Recalled:
    """What the conversation read finds in the channel's last `windows` windows before the recalled span."""
    talk = await context_reads.conversation(
        store, G1, channel, author_id="nobody", at=ASKED, text=text, recall=20, older_episodes=windows
    )
    return talk.older
