"""Who knows about a topic, and a topic's timeline, asked in plain language and as slash commands: ranking by how
much and how recently, the channel scope, opted-out members left out, no pings, valid-time order across a
supersession and as of a date. Real ArcadeDB, Discord doubled."""

from __future__ import annotations

import re
from datetime import timedelta

from common.links import JUMP_URL
from graph.models import EpisodeWrite
from graph.store import GraphStore
from graph.writes.episodes import write_episode
from tests.bot.harness import AT, Harness, allowed_none
from tests.bot.memory.test_channel_scope import seen_by_everyone
from tests.support.busy_server import G1, GENERAL, PEOPLE, T0, Populated, U, populate
from tests.support.discord_doubles import MockInteraction, MockTextChannel, invoke, sent_texts

STAFF = "120000000000000001"


def url(channel_id: str, message_id: str) -> str:
    return f"https://discord.com/channels/{G1}/{channel_id}/{message_id}"


async def _ask(harness: Harness, who: str, text: str, minutes: int, channel: object = None, **kwargs: object) -> str:
    message = harness.message(
        harness.member(who), text, to_bot=True, at=AT + timedelta(minutes=minutes), channel=channel, **kwargs
    )
    await harness.deliver(message)
    assert allowed_none(message.reply.await_args)  # the answer pings no one it names
    return "\n".join(sent_texts(message.reply))


async def _kubernetes(store: GraphStore, harness: Harness) -> tuple[Populated, MockTextChannel, dict[str, str]]:
    """Who spoke of kubernetes, and where: Alice a lot and lately (two facts she reported, a message), Eve once
    lately, Bob three times more than a year ago, Charlie only in the restricted #staff, Dave before he opted out,
    Frank in a window not closed yet. Returns the message ids each member's best evidence should link to."""
    p = await populate(store)
    seen_by_everyone(harness.general, True)
    staff = seen_by_everyone(MockTextChannel(id=int(STAFF), name="staff", guild=harness.guild), False)
    await harness.deliver(harness.message(harness.member("dave"), "morning", channel=staff, at=AT - timedelta(days=3)))
    day = AT - timedelta(days=1)
    alice = [
        await p.say(GENERAL, "alice", "we moved our cluster to kubernetes last month", day),
        await p.say(GENERAL, "alice", "kubernetes autoscaling finally works for us", day + timedelta(minutes=1)),
    ]
    eve = await p.say(GENERAL, "eve", "is kubernetes worth it for a small team?", day + timedelta(minutes=2))
    dave = await p.say(GENERAL, "dave", "I wrote our kubernetes helm charts", day + timedelta(minutes=3))
    key = await p.episode(GENERAL, [*alice, eve, dave])
    await write_episode(
        store,
        EpisodeWrite(
            key=key,
            guild_id=G1,
            facts=(
                p.fact("k8s_move", "Alice's team moved their cluster to kubernetes", [U("alice")], alice[0]),
                p.fact("k8s_scale", "Alice got kubernetes autoscaling working", [U("alice")], alice[1]),
            ),
        ),
    )
    old = [await p.say(GENERAL, "bob", f"kubernetes broke again, day {i}", AT - timedelta(days=420 + i)) for i in range(3)]
    await p.episode(GENERAL, old)
    hidden = await p.say(STAFF, "charlie", "the kubernetes admin password rotates monthly", day)
    await p.episode(STAFF, [hidden])
    await p.say(GENERAL, "frank", "kubernetes meetup tonight?", day + timedelta(minutes=9))  # buffered: no window yet
    said = await _ask(harness, "dave", "opt out", 0)
    assert "opted out" in said.lower() or "won't" in said.lower(), said
    return p, staff, {"alice": alice[1].id, "eve": eve.id, "bob": old[0].id, "charlie": hidden.id}


async def test_who_knows_ranks_members_by_how_much_and_how_recently(store: GraphStore, harness: Harness) -> None:
    _, staff, best = await _kubernetes(store, harness)
    answer = await _ask(harness, "grace", "who knows about kubernetes?", 1)
    lines = answer.splitlines()
    assert lines[0] == "Who knows about “kubernetes”, from what I may recall here:"
    assert [re.sub(r":.*", "", line) for line in lines[1:]] == ["1. Alice", "2. Eve", "3. Bob"]
    assert lines[1].startswith("1. Alice: 2 facts, 2 messages, last on 6 May 2024")
    assert lines[1].endswith(url(GENERAL, best["alice"])) and lines[2].endswith(url(GENERAL, best["eve"]))
    assert lines[3].startswith("3. Bob: 3 messages, last on ") and lines[3].endswith(url(GENERAL, best["bob"]))
    assert "Charlie" not in answer and "Dave" not in answer and "Frank" not in answer
    assert "<@" not in answer and all(JUMP_URL.fullmatch(u) for u in re.findall(r"https://\S+", answer))

    in_staff = await _ask(harness, "grace", "who knows about kubernetes?", 2, channel=staff)
    assert "Charlie: 1 message" in in_staff and url(STAFF, best["charlie"]) in in_staff
    assert "Dave" not in in_staff  # opted out: never listed, wherever asked

    interaction = MockInteraction(user=harness.member("grace"), guild=harness.guild, channel=harness.general, created_at=AT)
    await invoke(harness.memory.who_knows_command, harness.memory, interaction, topic="Kubernetes")
    [slash] = sent_texts(interaction.followup.send)
    assert "1. Alice" in slash and "Charlie" not in slash and "Dave" not in slash
    assert allowed_none(interaction.followup.send.await_args) and interaction.followup.send.await_args.kwargs["ephemeral"]

    assert (await _ask(harness, "grace", "who knows about quantum knitting?", 3)).startswith("I don't know of anyone here")


async def _munich(store: GraphStore, p: Populated) -> tuple[str, str]:
    """Bob lived in Berlin (populate), then moved to Munich: a fact that supersedes it. The two source message ids."""
    berlin = next(m for m in p.messages if m.content == "I live in Berlin btw")
    said = await p.say(GENERAL, "bob", "moved to Munich yesterday!", T0 + timedelta(days=3))
    key = await p.episode(GENERAL, [said])
    munich = p.fact(
        "bob_munich", "Bob moved to Munich", [U("bob")], said, valid_at=T0 + timedelta(days=2), supersedes=["bob_berlin"]
    )
    assert (await write_episode(store, EpisodeWrite(key=key, guild_id=G1, facts=(munich,)))).superseded == 1
    return berlin.id, said.id


async def test_a_timeline_runs_in_valid_time_order_across_a_supersession(store: GraphStore, harness: Harness) -> None:
    p = await populate(store)
    seen_by_everyone(harness.general, True)
    berlin, munich = await _munich(store, p)
    bob = harness.member("bob")

    answer = await _ask(harness, "grace", f"what happened with {bob.mention}?", 1, mentions=[bob])
    lines = answer.splitlines()
    assert lines[0] == "What happened with Bob, oldest first:"
    assert lines[1] == (
        f"• 4 May 2024: Bob lives in Berlin (said by Bob) {url(GENERAL, berlin)} — superseded on 5 May 2024 by “Bob moved to Munich”"
    )
    assert lines[2] == f"• 5 May 2024: Bob moved to Munich (said by Bob) {url(GENERAL, munich)} — replaced “Bob lives in Berlin”"

    as_of = await _ask(harness, "grace", f"what happened with {bob.mention} as of 2024-05-04T23:00Z?", 2, mentions=[bob])
    assert as_of.splitlines() == ["What happened with Bob as of 4 May 2024, oldest first:", lines[1].split(" — ")[0]]

    celtics = await _ask(harness, "grace", "what happened with the celtics?", 3)  # an entity, by name
    assert celtics.startswith(
        "What happened with Celtics, oldest first:\n• 3 May 2024: Charlie is a Celtics fan (said by Charlie)"
    )

    interaction = MockInteraction(user=harness.member("grace"), guild=harness.guild, channel=harness.general, created_at=AT)
    await invoke(harness.memory.timeline_command, harness.memory, interaction, topic=bob.mention, at="2024-05-04T23:00:00Z")
    [slash] = sent_texts(interaction.followup.send)
    assert slash == as_of
    bad = MockInteraction(user=harness.member("grace"), guild=harness.guild, channel=harness.general, created_at=AT)
    await invoke(harness.memory.timeline_command, harness.memory, bad, topic="bob", at="last tuesday")
    assert sent_texts(bad.followup.send) == ["“last tuesday” is not a date I can read; use one like 2024-05-10."]


async def test_a_timeline_leaves_out_what_the_channel_may_not_recall(store: GraphStore, harness: Harness) -> None:
    p = await populate(store)
    seen_by_everyone(harness.general, True)
    staff = seen_by_everyone(MockTextChannel(id=int(STAFF), name="staff", guild=harness.guild), False)
    await harness.deliver(harness.message(harness.member("dave"), "morning", channel=staff, at=AT - timedelta(days=3)))
    secret = await p.say(STAFF, "alice", "bob is interviewing at Globex, keep it quiet", T0 + timedelta(days=2))
    key = await p.episode(STAFF, [secret])
    await write_episode(
        store, EpisodeWrite(key=key, guild_id=G1, facts=(p.fact("globex", "Bob is interviewing at Globex", [U("bob")], secret),))
    )
    bob = harness.member("bob")
    general = await _ask(harness, "grace", f"what happened with {bob.mention}?", 1, mentions=[bob])
    assert "Berlin" in general and "Globex" not in general and STAFF not in general
    here = await _ask(harness, "grace", f"what happened with {bob.mention}?", 2, channel=staff, mentions=[bob])
    assert f"Bob is interviewing at Globex (said by Alice) {url(STAFF, secret.id)}" in here
    assert PEOPLE["bob"] not in here  # a member is named, never mentioned
