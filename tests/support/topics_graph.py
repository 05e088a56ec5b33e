"""A populated guild with topics to ask about, for the operator tools (CLI, MCP): kubernetes talk in #general and
in a restricted #staff, Bob's move from Berlin to Munich (a supersession), and Dave, who spoke of kubernetes and
then opted out."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from graph.models import Channel, EpisodeWrite
from graph.privacy.channels import set_visibility
from graph.privacy.guards.consent import opt_out
from graph.store import GraphStore
from graph.writes.discord_records import upsert_channel
from graph.writes.episodes import write_episode
from tests.support.busy_server import G1, GENERAL, PEOPLE, T0, Populated, U, populate

STAFF = "120000000000000001"
NOW = T0 + timedelta(days=4)


@dataclass
class Topical:
    p: Populated
    links: dict[str, str]  # what each member's best evidence links to, and the Munich fact's source


async def topical(store: GraphStore) -> Topical:
    p = await populate(store)
    await upsert_channel(store, Channel(id=STAFF, guild_id=G1, name="staff"))
    assert await set_visibility(store, G1, STAFF, "restricted") == "private"
    day = NOW - timedelta(days=1)
    alice = await p.say(GENERAL, "alice", "we moved our cluster to kubernetes last month", day)
    eve = await p.say(GENERAL, "eve", "is kubernetes worth it for a small team?", day + timedelta(minutes=2))
    dave = await p.say(GENERAL, "dave", "I wrote our kubernetes helm charts", day + timedelta(minutes=3))
    key = await p.episode(GENERAL, [alice, eve, dave])
    fact = p.fact("k8s_move", "Alice's team moved their cluster to kubernetes", [U("alice")], alice)
    await write_episode(store, EpisodeWrite(key=key, guild_id=G1, facts=(fact,)))
    hidden = await p.say(STAFF, "charlie", "the kubernetes admin password rotates monthly", day)
    await p.episode(STAFF, [hidden])
    moved = await p.say(GENERAL, "bob", "moved to Munich yesterday!", T0 + timedelta(days=3))
    key = await p.episode(GENERAL, [moved])
    munich = p.fact(
        "bob_munich", "Bob moved to Munich", [U("bob")], moved, valid_at=T0 + timedelta(days=2), supersedes=["bob_berlin"]
    )
    assert (await write_episode(store, EpisodeWrite(key=key, guild_id=G1, facts=(munich,)))).superseded == 1
    await opt_out(store, PEOPLE["dave"])
    return Topical(p, {"alice": alice.id, "eve": eve.id, "charlie": hidden.id, "munich": moved.id})
