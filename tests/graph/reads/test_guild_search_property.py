"""Every guild-scoped read that searches words answers a small guild exactly as it would alone, whatever another guild
sharing the engine says: for any few messages, facts and entities of a small guild and any number of another's
(words drawn from one vocabulary, so the other guild matches every search too), who-knows (as the bot and the CLI
read it, and MCP's `run_query`), the explorer's search, the entity search, the reply's facts, an entity's timeline
and the reply's recalled messages read the same before and after the other guild is written. Each read's cap
(`hits`, `limit`) is kept small, below what the other guild can match: a search that took its best matches across
guilds before keeping the guild's would lose the small guild's. On the real engine."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from grapevine.explore.reads import ExploreReader
from graph.models import Channel, EpisodeWrite, Guild, Message, NodeRef, User
from graph.privacy.channels import set_visibility
from graph.reads import context, topics
from graph.reads.context import FactRequest
from graph.reads.facts import search_entities
from graph.reads.operator import coerce_params, get_query, run_operator_query
from graph.store import GraphStore
from graph.writes.discord_records import upsert_channel, upsert_guild, upsert_users
from graph.writes.episodes import write_episode
from graph.writes.messages import record_messages
from tests.support.busy_server import G1, G2, GENERAL, OTHER, PEOPLE, T0, Populated
from tests.support.machine_profiles import profile
from tests.support.machine_store import emptied

WORDS = ["berlin", "hike", "van", "miso", "ridge", "july"]
SMALL = ["alice", "bob", "charlie"]
BIG = ["dave", "eve", "frank", "grace"]
HITS = 3  # who-knows' matches read per full-text index
LIMIT = 4  # the explorer's and the entity searches' results (their reads take LIMIT * 5 matches): the other guild's
# echoes of the words asked about out-number both
NOW = T0 + timedelta(days=1)

# who says it, its words, and where its fact holds them: in its text, in the name of an entity it mentions, or both
# (who-knows finds a fact by its text, by an entity it names, or by the message it came from: each alone must be right)
HOLDS = st.sampled_from(["text", "entity", "both"])
said = st.tuples(st.integers(0, 3), st.lists(st.sampled_from(WORDS), min_size=1, max_size=3, unique=True), HOLDS)
Said = tuple[int, list[str], str]


async def _nobody(ids: set[str]) -> set[str]:
    return set()


async def _guild(store: GraphStore, guild: str, channel: str, people: list[str]) -> None:
    await upsert_guild(store, Guild(id=guild, name=f"guild {guild[-2:]}"))
    await upsert_channel(store, Channel(id=channel, guild_id=guild, name="general"))
    await set_visibility(store, guild, channel, "public")  # shared, as the live bot first sees a public channel
    await upsert_users(store, [User(id=PEOPLE[n], name=n, display_name=n.capitalize()) for n in people], guild)


async def _write(p: Populated, guild: str, channel: str, people: list[str], items: list[Said]) -> None:
    """Each item a message of one of `people` saying its words, one window of them all, and from each message a fact
    about its author, maybe mentioning an entity named by its words."""
    messages = [
        Message(id=p.mid(), guild_id=guild, channel_id=channel, author_id=PEOPLE[people[who % len(people)]],
                content=f"we talked about {' '.join(words)}", created_at=T0 + timedelta(minutes=n))
        for n, (who, words, _) in enumerate(items)
    ]  # fmt: skip
    await record_messages(p.store, messages)
    key = await p.episode(channel, messages, guild)
    entities = [p.entity(f"{guild}-{n}", " ".join(words).title(), "other") for n, (_, words, _) in enumerate(items)]
    facts = [
        p.fact(f"{guild}-{n}", f"{m.author_id[-2:]} knows {' '.join(words) if holds != 'entity' else 'something'}",
               [NodeRef(kind="user", id=m.author_id)], m,
               mentions=[NodeRef(kind="entity", id=e.uuid)] if holds != "text" else [])
        for n, ((_, words, holds), m, e) in enumerate(zip(items, messages, entities, strict=True))
    ]  # fmt: skip
    await write_episode(p.store, EpisodeWrite(key=key, guild_id=guild, summary="talk", entities=tuple(entities),
                                              facts=tuple(facts)))  # fmt: skip


def _ids(found: list[Any]) -> list[str]:
    return [str(getattr(x, "uuid", getattr(x, "id", x))) for x in found]


async def _answers(store: GraphStore, topic: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for channel in (None, "", GENERAL):
        found = await topics.who_knows(store, G1, topic, channel_id=channel, opted_out=_nobody, now=NOW, limit=50, hits=HITS)
        out[f"who_knows {channel}"] = [topics.knower_record(k, G1, i) for i, k in enumerate(found)]
    query = get_query("who_knows")
    values = coerce_params(query, {"guild_id": G1, "topic": topic, "channel_id": "", "hits": str(HITS)})
    rows = await run_operator_query(store, query, values)
    out["run_query who_knows"] = sorted(repr(sorted(r.items())) for r in rows)
    points = await ExploreReader(store).start_points(G1, topic, limit=LIMIT)
    out["explore"] = [n["key"] for n in points["facts"]]  # in order: the engine's score counts every guild's texts
    out["entities"] = _ids(await search_entities(store, G1, topic, limit=LIMIT))
    facts = await context.reply_facts(store, FactRequest(G1, author_id=PEOPLE["alice"], mentioned_ids=[], names=[], entity_keys=[],
                                      text=f"what about {topic}?", skip_ids=[], now=NOW, channel_id=GENERAL,
                                      limit=LIMIT))  # fmt: skip
    out["reply facts"] = {source: _ids(found) for source, found in facts.items()}
    for word in topic.split():
        timeline = await topics.timeline(store, G1, entity_name=word.title(), channel_id=GENERAL,
                                         opted_out=_nobody, now=NOW)  # fmt: skip
        out[f"timeline {word}"] = _ids(timeline)
    talk = await context.conversation(store, G1, GENERAL, author_id=PEOPLE["alice"], at=NOW, text=f"what about {topic}?",
                                      recall=10, older_episodes=2)  # fmt: skip
    out["recalled"] = [m.id for m in (*talk.recalled, *talk.older.matches)]
    out["around"] = [(near, m.id) for near, m in (*talk.around, *talk.older.around)]
    return out


@profile(ci=(6, 1), long=(60, 1))
@given(
    small=st.lists(said, min_size=1, max_size=4),
    big=st.lists(said, max_size=8),
    echoes=st.lists(st.tuples(st.integers(0, 3), HOLDS), min_size=5 * LIMIT + 1, max_size=7 * LIMIT),
    asked=st.tuples(st.integers(0, 3), st.integers(1, 2)),
)
async def test_a_small_guild_reads_the_same_whatever_a_big_guild_beside_it_says(
    store: GraphStore, small: list[Said], big: list[Said], echoes: list[tuple[int, str]], asked: tuple[int, int]
) -> None:
    """The big guild says anything, and (`echoes`) more than a read's cap of messages saying exactly the words asked
    about: the best matches a search can find. It is written first (an engine's ties go to what it indexed first),
    the small guild read beside it, then the big guild removed and the small one read alone."""
    topic = small[asked[0] % len(small)][1][: asked[1]]  # words the small guild said: it has an answer
    await emptied(store)
    p = Populated(store)
    await _guild(store, G2, OTHER, BIG)
    await _write(p, G2, OTHER, BIG, [*big, *((who, topic, holds) for who, holds in echoes)])
    await _guild(store, G1, GENERAL, SMALL)
    await _write(p, G1, GENERAL, SMALL, small)
    words = " ".join(topic)
    beside = await _answers(store, words)
    await store.driver.execute_query(
        "MATCH (n) WHERE n.guild_id = $g OR n.id = $g DETACH DELETE n", g=G2, database_=store.engine.database
    )
    alone = await _answers(store, words)
    assert alone["who_knows None"] and alone["run_query who_knows"], alone  # the small guild's own are found
    assert alone["entities"] or alone["explore"], alone
    assert beside == alone
