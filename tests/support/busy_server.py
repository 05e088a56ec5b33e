"""A populated graph for conformance tests: two guilds, a dozen people, episodes, entities, facts."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from common.settings import RecallTuning
from graph.models import (
    Channel,
    ChannelKind,
    Corroboration,
    EntityWrite,
    EpisodeClose,
    EpisodeWrite,
    FactWrite,
    Guild,
    Message,
    MessageView,
    NodeRef,
    RelationWrite,
    Report,
    User,
)
from graph.privacy.channels import set_visibility
from graph.reads import context as context_reads
from graph.store import GraphStore
from graph.writes.discord_records import upsert_channel, upsert_guild, upsert_users
from graph.writes.episodes import WriteOutcome, close_episode, write_episode
from graph.writes.messages import record_messages

T0 = datetime(2024, 5, 3, 18, 0, tzinfo=UTC)
G1, G2 = "100000000000000001", "200000000000000002"
GENERAL, THREAD, OTHER = "110000000000000001", "110000000000000002", "210000000000000001"

PEOPLE = {
    "alice": "300000000000000001",
    "bob": "300000000000000002",
    "charlie": "300000000000000003",
    "dave": "300000000000000004",
    "eve": "300000000000000005",
    "frank": "300000000000000006",
    "grace": "300000000000000007",
    "ivan": "300000000000000008",
    "judy": "300000000000000009",
    "mallory": "300000000000000010",
    "oscar": "300000000000000011",
    "peggy": "300000000000000012",
}
BOT = "399999999999999999"


def U(name: str) -> NodeRef:
    return NodeRef(kind="user", id=PEOPLE[name])


def E(entity_uuid: str) -> NodeRef:
    return NodeRef(kind="entity", id=entity_uuid)


@dataclass
class Populated:
    store: GraphStore
    facts: dict[str, str] = field(default_factory=dict)  # label -> uuid
    entities: dict[str, str] = field(default_factory=dict)
    messages: list[Message] = field(default_factory=list)
    episodes: list[str] = field(default_factory=list)
    next_id: int = 500000000000000000

    def mid(self) -> str:
        self.next_id += 1
        return str(self.next_id)

    async def say(self, channel: str, who: str, text: str, at: datetime, guild: str = G1, reply_to: str | None = None) -> Message:
        author = BOT if who == "bot" else PEOPLE[who]
        msg = Message(
            id=self.mid(), guild_id=guild, channel_id=channel, author_id=author, content=text, created_at=at, reply_to_id=reply_to
        )
        await record_messages(self.store, [msg])
        self.messages.append(msg)
        return msg

    async def episode(self, channel: str, msgs: list[Message], guild: str = G1) -> str:
        key = f"{channel}:{msgs[0].id}:{msgs[-1].id}"
        await close_episode(
            self.store,
            EpisodeClose(
                key=key,
                uuid=uuid.uuid4().hex,
                guild_id=guild,
                channel_id=channel,
                started_at=msgs[0].created_at,
                ended_at=msgs[-1].created_at,
                message_ids=tuple(m.id for m in msgs),
                participant_ids=tuple(dict.fromkeys(m.author_id for m in msgs)),
            ),
        )
        self.episodes.append(key)
        return key

    def fact(
        self,
        label: str,
        text: str,
        about: list[NodeRef],
        by: Message,
        *,
        mentions: Sequence[NodeRef] = (),
        valid_at: datetime | None = None,
        importance: int = 5,
        supersedes: Sequence[str] = (),
        expires_at: datetime | None = None,
        category: str = "other",
    ) -> FactWrite:
        fact_uuid = uuid.uuid5(uuid.NAMESPACE_URL, f"fact:{label}").hex
        self.facts[label] = fact_uuid
        return FactWrite(
            uuid=fact_uuid,
            text=text,
            category=category,
            importance=importance,
            valid_at=valid_at or by.created_at,
            expires_at=expires_at,
            about=tuple(about),
            mentions=tuple(mentions),
            reports=(Report(user_id=by.author_id, message_id=by.id, at=by.created_at),),
            source_message_ids=(by.id,),
            supersedes=tuple(self.facts[s] for s in supersedes),
        )

    def entity(self, label: str, name: str, kind: str, aliases: tuple[str, ...] = ()) -> EntityWrite:
        entity_uuid = uuid.uuid5(uuid.NAMESPACE_URL, f"entity:{label}").hex
        self.entities[label] = entity_uuid
        return EntityWrite(uuid=entity_uuid, name=name, kind=kind, aliases=aliases)


MUNICH_AT = T0 + timedelta(days=10)


async def move_bob_to_munich(p: Populated, at: datetime = MUNICH_AT) -> WriteOutcome:
    """Bob says he moved to Munich a week before `at`: a window whose fact supersedes his Berlin one."""
    msg = await p.say(GENERAL, "bob", "moved to Munich last week!", at)
    key = await p.episode(GENERAL, [msg])
    munich = p.fact("bob_munich", "Bob moved to Munich", [U("bob")], msg, valid_at=at - timedelta(days=7),
                    supersedes=["bob_berlin"], category="location")  # fmt: skip
    return await write_episode(p.store, EpisodeWrite(key=key, guild_id=G1, facts=(munich,)))


async def in_general(store: GraphStore, *names: str) -> Populated:
    """A hand-made graph's start: guild G1 with only #general, and these of PEOPLE."""
    p = Populated(store)
    await upsert_guild(store, Guild(id=G1, name="Book Club"))
    await upsert_channel(store, Channel(id=GENERAL, guild_id=G1, name="general"))
    await upsert_users(store, [User(id=PEOPLE[n], name=n, display_name=n.capitalize()) for n in names])
    return p


async def populate(store: GraphStore) -> Populated:
    p = Populated(store)
    await upsert_guild(store, Guild(id=G1, name="Book Club"))
    await upsert_guild(store, Guild(id=G2, name="Climbing Gym"))
    await upsert_channel(store, Channel(id=GENERAL, guild_id=G1, name="general"))
    await upsert_channel(store, Channel(id=THREAD, guild_id=G1, name="weekend plans", kind=ChannelKind.THREAD, parent_id=GENERAL))
    await upsert_channel(store, Channel(id=OTHER, guild_id=G2, name="bouldering"))
    for guild_id, channel_id in ((G1, GENERAL), (G1, THREAD), (G2, OTHER)):  # as the live bot saw them: @everyone views all
        await set_visibility(store, guild_id, channel_id, "public")
    await upsert_users(
        store,
        [User(id=i, name=n, display_name=n.capitalize()) for n, i in PEOPLE.items()]
        + [User(id=BOT, name="grapevine", display_name="grapevine", is_bot=True)],
    )
    t = T0

    # Bob asks where Alice moved; Charlie's sister lives in Austin.
    m1 = await p.say(GENERAL, "bob", "where did you move again?", t)
    m2 = await p.say(GENERAL, "alice", "Austin!", t + timedelta(seconds=20), reply_to=m1.id)
    m3 = await p.say(GENERAL, "alice", "Next month actually", t + timedelta(seconds=30))
    m4 = await p.say(GENERAL, "charlie", "my sister lives there", t + timedelta(seconds=50))
    k1 = await p.episode(GENERAL, [m1, m2, m3, m4])
    austin = p.entity("austin", "Austin", "place", ("ATX",))
    sister = p.entity("sister", "Charlie's sister", "person", ("sister",))
    await write_episode(
        store,
        EpisodeWrite(
            key=k1,
            guild_id=G1,
            summary="Alice is moving to Austin next month; Charlie's sister lives there.",
            entities=(austin, sister),
            relations=(RelationWrite(entity_uuid=sister.uuid, kind="sister", target=U("charlie")),),
            facts=(
                p.fact(
                    "alice_austin",
                    "Alice is moving to Austin next month",
                    [U("alice")],
                    m2,
                    mentions=[E(austin.uuid)],
                    valid_at=t + timedelta(days=30),
                    importance=8,
                    category="location",
                ),
                p.fact(
                    "sister_austin",
                    "Charlie's sister lives in Austin",
                    [E(sister.uuid)],
                    m4,
                    mentions=[E(austin.uuid), U("charlie")],
                    importance=6,
                    category="location",
                ),
            ),
        ),
    )

    # Alice adopted Luna; Bob and Charlie talk about the Celtics.
    t = T0 + timedelta(hours=3)
    n1 = await p.say(GENERAL, "alice", "we adopted a cat! her name is Luna", t)
    n2 = await p.say(GENERAL, "bob", "did you see the Celtics game", t + timedelta(seconds=10))
    n3 = await p.say(GENERAL, "charlie", "Celtics all the way, I never miss a game", t + timedelta(seconds=30), reply_to=n2.id)
    k2 = await p.episode(GENERAL, [n1, n2, n3])
    luna = p.entity("luna", "Luna", "pet", ("the cat",))
    celtics = p.entity("celtics", "Celtics", "organization", ("Boston Celtics",))
    await write_episode(
        store,
        EpisodeWrite(
            key=k2,
            guild_id=G1,
            summary="Alice adopted a cat named Luna; Bob and Charlie discussed the Celtics game.",
            entities=(luna, celtics),
            relations=(RelationWrite(entity_uuid=luna.uuid, kind="cat", target=U("alice")),),
            facts=(
                p.fact("alice_luna", "Alice adopted a cat named Luna", [U("alice")], n1, mentions=[E(luna.uuid)], importance=7),
                p.fact("charlie_celtics", "Charlie is a Celtics fan", [U("charlie")], n3, mentions=[E(celtics.uuid)]),
            ),
        ),
    )

    # Eve tells that Frank got engaged to Heather; Grace corroborates a fact.
    t = T0 + timedelta(days=1)
    o1 = await p.say(GENERAL, "eve", "Frank got engaged to Heather!!", t)
    o2 = await p.say(GENERAL, "grace", "yes Frank told me he got engaged to Heather", t + timedelta(seconds=40))
    o3 = await p.say(GENERAL, "bob", "I live in Berlin btw", t + timedelta(seconds=60))
    k3 = await p.episode(GENERAL, [o1, o2, o3])
    heather = p.entity("heather", "Heather", "person")
    engaged = p.fact(
        "frank_engaged",
        "Frank got engaged to Heather",
        [U("frank")],
        o1,
        mentions=[E(heather.uuid)],
        importance=8,
        category="relationship",
    )
    await write_episode(
        store,
        EpisodeWrite(
            key=k3,
            guild_id=G1,
            summary="Eve shared that Frank got engaged to Heather; Bob lives in Berlin.",
            entities=(heather,),
            facts=(engaged, p.fact("bob_berlin", "Bob lives in Berlin", [U("bob")], o3, importance=6, category="location")),
        ),
    )
    k3b = await p.episode(GENERAL, [await p.say(GENERAL, "grace", "congrats to them", t + timedelta(minutes=5))])
    await write_episode(
        store,
        EpisodeWrite(
            key=k3b,
            guild_id=G1,
            corroborations=(
                Corroboration(fact_uuid=engaged.uuid, report=Report(user_id=PEOPLE["grace"], message_id=o2.id, at=o2.created_at)),
            ),
        ),
    )

    # A thread, a transient fact, and filler people with facts of their own.
    t = T0 + timedelta(days=2)
    th = [
        await p.say(THREAD, "dave", f"job offer detail {i}: Acme wants me as a staff engineer", t + timedelta(seconds=10 * i))
        for i in range(5)
    ]
    k4 = await p.episode(THREAD, th)
    await write_episode(
        store,
        EpisodeWrite(
            key=k4,
            guild_id=G1,
            summary="Dave got a staff engineer offer from Acme.",
            facts=(
                p.fact(
                    "dave_offer",
                    "Dave got a job offer from Acme as a staff engineer",
                    [U("dave")],
                    th[0],
                    importance=7,
                    category="work",
                ),
                p.fact(
                    "dave_drunk",
                    "Dave is celebrating tonight",
                    [U("dave")],
                    th[4],
                    importance=2,
                    expires_at=th[4].created_at + timedelta(days=1),
                ),
            ),
        ),
    )
    filler: list[FactWrite] = []
    fm = []
    for i, who in enumerate(["ivan", "judy", "mallory", "oscar", "peggy"]):
        msg = await p.say(
            GENERAL, who, f"I'm {who}, I like hiking and I work at a bakery number {i}", t + timedelta(hours=1, minutes=i)
        )
        fm.append(msg)
        for j in range(4):
            filler.append(
                p.fact(
                    f"{who}_{j}",
                    f"{who.capitalize()} has hobby number {j} ({'hiking bakery chess tea'.split()[j]})",
                    [U(who)],
                    msg,
                    importance=3 + j,
                )
            )
    k5 = await p.episode(GENERAL, fm)
    await write_episode(store, EpisodeWrite(key=k5, guild_id=G1, summary="Members introduced themselves.", facts=tuple(filler)))

    # The same Alice in another guild: nothing of it may leak into the Book Club.
    z1 = await p.say(OTHER, "alice", "I'm vegetarian, no meat at the meetup please", T0, guild=G2)
    z2 = await p.say(OTHER, "charlie", "noted Alice", T0 + timedelta(seconds=5), guild=G2)
    k6 = await p.episode(OTHER, [z1, z2], guild=G2)
    await write_episode(
        store,
        EpisodeWrite(
            key=k6,
            guild_id=G2,
            summary="Alice is vegetarian.",
            facts=(p.fact("alice_veg", "Alice is vegetarian", [U("alice")], z1, importance=6),),
        ),
    )
    return p


async def recalled(
    store: GraphStore,
    guild_id: str,
    channel_id: str,
    text: str,
    before: datetime,
    limit: int = 20,
    tuning: RecallTuning = RecallTuning(),
) -> list[MessageView]:
    """The channel's messages before `before` matching `text`, as a reply's conversation read finds them."""
    talk = await context_reads.conversation(
        store, guild_id, channel_id, author_id="nobody", at=before, text=text, recall=limit, tuning=tuning
    )
    return list(talk.recalled)
