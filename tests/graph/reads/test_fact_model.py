"""The read model of a reply's facts (graph/reads/fact_model.py) against the statement it stands in for
(context/facts.cypher, `reply_facts_read`), on the real engine: the same facts for any request; every writer moves
its guild's change count in its own transaction; and what a write changes (a forget, a mode change, another
process's write) is in the model's next answer, a forgotten member nowhere in its memory afterwards."""

from __future__ import annotations

import math
import random
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from common.text import content_words, stem
from graph.models import (
    Channel,
    ChannelKind,
    Corroboration,
    EpisodeClose,
    EpisodeStatus,
    EpisodeWrite,
    FactView,
    FactWrite,
    Guild,
    Message,
    NodeRef,
    RelationWrite,
    Report,
    User,
    dm_scope,
)
from graph.privacy.channels import set_mode, set_visibility
from graph.privacy.erasure import delete_facts, erase_channel
from graph.privacy.forget import forget_user
from graph.privacy.guards.consent import opt_out
from graph.privacy.retention import apply_retention, retire_expired
from graph.privacy.user_cap import enforce_user_cap
from graph.reads import context as context_reads
from graph.reads import fact_model
from graph.reads.context import FactRequest
from graph.store import GraphStore
from graph.writes.discord_records import upsert_channel, upsert_guild, upsert_users
from graph.writes.episodes import close_episode, mark_episode, write_command_facts, write_episode
from graph.writes.guild_reset import reset_guild
from graph.writes.messages import delete_message, edit_message, record_batch, record_messages
from tests.support.busy_server import G1, G2, GENERAL, OTHER, PEOPLE, T0, THREAD, E, Populated, U, populate

WORDS = ["alice", "bob", "charlie", "dave", "frank", "heather", "celtics", "austin", "cat", "berlin", "acme", "sister",
         "luna", "engaged", "job", "vegetarian", "atx", "the", "Alice", "munich"]  # fmt: skip
AUTHORS = [*PEOPLE.values(), "nobody"]


def request(rng: random.Random) -> dict[str, Any]:
    """A reply's fact read, as recall/gather.py asks for it, with any author, mentions, words and channel."""
    from recall.gather import name_candidates

    text = " ".join(rng.sample(WORDS, rng.randint(0, 4)))
    author = rng.choice(AUTHORS)
    guild, channel = rng.choice([(G1, GENERAL), (G1, THREAD), (G1, None), (G2, OTHER), (G2, None), (G1, OTHER)])
    return {
        "guild_id": guild,
        "author_id": author,
        "mentioned_ids": rng.sample(list(PEOPLE.values()), rng.randint(0, 2)),
        "names": text.split(),
        "entity_keys": name_candidates(text),
        "text": text,
        "skip_ids": [author],
        "now": T0 + timedelta(days=rng.choice([-1, 0, 3, 45, 400])),
        "channel_id": channel,
        "author_limit": rng.choice([1, 50]),
        "pool": rng.choice([1, 2, 20]),
        "limit": rng.choice([1, 20]),
        "hop_limit": rng.choice([1, 20]),
    }


def comparable(found: dict[str, list[FactView]]) -> dict[str, list[FactView]]:
    return {source: sorted(facts, key=lambda f: f.uuid) for source, facts in found.items()}


async def both(store: GraphStore, asked: dict[str, Any]) -> tuple[dict[str, list[FactView]], dict[str, list[FactView]]]:
    args = dict(asked)
    guild = args.pop("guild_id")
    held = await context_reads.reply_facts(store, FactRequest(guild, **args))
    read = await context_reads.reply_facts_read(store, FactRequest(guild, **args))
    return held, read


async def agree(store: GraphStore, asked: dict[str, Any]) -> dict[str, list[FactView]]:
    held, read = await both(store, asked)
    assert held == read, asked  # the same facts, in the same order, each with the same fields
    return held


async def test_the_model_answers_what_the_statement_answers(store: GraphStore) -> None:
    """For any request over the busy graph, before and after its channels' modes change: the model's answer is the
    statement's, field for field; and it loads each guild once while nothing is written."""
    await populate(store)
    rng = random.Random(50)
    found = 0
    for _ in range(120):
        found += sum(len(f) for f in (await agree(store, request(rng))).values())
    assert found > 100  # the requests find facts, of every source
    assert fact_model.model_of(store).loads == 2
    await set_mode(store, G1, THREAD, "private")
    await set_mode(store, G2, OTHER, "off")
    for _ in range(60):
        await agree(store, request(rng))
    assert fact_model.model_of(store).loads == 4


def every_word_of(store: GraphStore) -> str:
    return "\n".join(fact_model.model_of(store).strings())


def module_state() -> str:
    """Every string the read model's module holds of its own, outside any store's model (a table, a cache)."""
    found: list[object] = []
    for value in vars(fact_model).values():
        if isinstance(value, dict):
            found += [s for pair in value.items() for s in pair]
        elif isinstance(value, set | frozenset | list):
            found += list(value)
    return "\n".join(s for s in found if isinstance(s, str))


ASK_ABOUT_ALICE = {"guild_id": G1, "author_id": PEOPLE["bob"], "mentioned_ids": [PEOPLE["alice"]], "names": ["alice"],
                   "entity_keys": ["austin"], "text": "alice austin", "skip_ids": [PEOPLE["bob"]],
                   "now": T0 + timedelta(days=3), "channel_id": GENERAL}  # fmt: skip


async def test_a_forgotten_member_is_nowhere_in_the_model(store: GraphStore) -> None:
    """Forget-me drops the member's facts from memory before it returns (no reply read in between), and the next
    answer, read again from the graph, holds nothing of them: their id, name and facts' text."""
    p = await populate(store)
    before = await agree(store, ASK_ABOUT_ALICE)
    alice_facts = [f.text for facts in before.values() for f in facts if PEOPLE["alice"] in f.about_ids]
    assert alice_facts and all(t in every_word_of(store) for t in alice_facts)
    assert PEOPLE["alice"] in every_word_of(store)
    her_term = stem("alice")  # what ranking holds of her name: "alic", which the search for "alice" does not find
    assert her_term in set(fact_model.model_of(store).strings())
    await forget_user(store, PEOPLE["alice"])
    held = every_word_of(store)
    assert PEOPLE["alice"] not in held and "alice" not in held.casefold()
    assert not [t for t in alice_facts if t in held]
    assert her_term not in set(fact_model.model_of(store).strings())
    assert PEOPLE["alice"] not in module_state() and "alice" not in module_state().casefold()
    after = await agree(store, ASK_ABOUT_ALICE)
    held = every_word_of(store)
    assert p.facts and fact_model.model_of(store).guilds  # the guild is held again
    assert PEOPLE["alice"] not in held and "alice" not in held.casefold(), held
    assert her_term not in set(fact_model.model_of(store).strings())
    assert not [f for facts in after.values() for f in facts if f.text in alice_facts]


async def test_a_forget_that_deletes_a_held_dm_space_leaves_nothing_of_it(store: GraphStore) -> None:
    """Alice's DM with the bot is a guild of its own (`dm:<her id>`): held once a reply read it, it goes from memory
    when her forget deletes the space's node (a write whose count no longer reaches that guild)."""
    await populate(store)
    space, dm = dm_scope(PEOPLE["alice"]), "120000000000000001"
    await upsert_guild(store, Guild(id=space, name="DM"))
    await upsert_channel(store, Channel(id=dm, guild_id=space, name="dm", kind=ChannelKind.DM))
    said = Message(id="130000000000000001", guild_id=space, channel_id=dm, author_id=PEOPLE["alice"],
                   content="remember I keep bees", created_at=T0)  # fmt: skip
    await record_messages(store, [said])
    fact = FactWrite(uuid="d" * 32, text="Alice keeps bees", about=(NodeRef(kind="user", id=PEOPLE["alice"]),),
                     source_message_ids=(said.id,), valid_at=T0, reports=())  # fmt: skip
    await write_command_facts(store, space, [fact])
    asked = {**ASK_ABOUT_ALICE, "guild_id": space, "author_id": PEOPLE["alice"], "channel_id": dm, "skip_ids": []}
    assert any(f.text == "Alice keeps bees" for facts in (await agree(store, asked)).values() for f in facts)
    assert space in every_word_of(store)
    await forget_user(store, PEOPLE["alice"])
    held = every_word_of(store)
    assert PEOPLE["alice"] not in held and "bees" not in held, held


async def test_a_mode_change_is_in_the_next_answer(store: GraphStore) -> None:
    """Dave's job facts, told in a thread of #general, are recalled in #general while the thread is shared; once a
    moderator sets the thread private, the next answer in #general leaves them out."""
    await populate(store)
    asked = {**ASK_ABOUT_ALICE, "mentioned_ids": [PEOPLE["dave"]], "names": ["dave", "acme"], "text": "dave acme job"}
    before = {f.text for facts in (await agree(store, asked)).values() for f in facts}
    assert any("Acme" in t for t in before), before
    await set_mode(store, G1, THREAD, "private")
    after = {f.text for facts in (await agree(store, asked)).values() for f in facts}
    assert not any("Acme" in t for t in after), after


async def test_another_process_write_is_seen_by_the_next_answer(store: GraphStore) -> None:
    """A write through another store (the CLI's forget, another shard) reaches this process only through the guild's
    count: the next answer here reads the guild again and leaves out what it forgot."""
    await populate(store)
    before = {f.text for facts in (await agree(store, ASK_ABOUT_ALICE)).values() for f in facts}
    assert any("Alice" in t for t in before)
    other = GraphStore(store.driver, store.engine)
    await forget_user(other, PEOPLE["alice"])
    assert PEOPLE["alice"] in every_word_of(store)  # this process cannot know yet
    after = {f.text for facts in (await agree(store, ASK_ABOUT_ALICE)).values() for f in facts}
    assert not any("Alice" in t for t in after), after
    assert PEOPLE["alice"] not in every_word_of(store)


async def test_the_upkeep_check_drops_what_another_process_wrote(store: GraphStore) -> None:
    """The bot's upkeep reads every guild's count and drops the guilds another process wrote, before any reply."""
    await populate(store)
    await agree(store, ASK_ABOUT_ALICE)
    assert await fact_model.drop_stale(store) == []
    other = GraphStore(store.driver, store.engine)
    await forget_user(other, PEOPLE["alice"])
    assert await fact_model.drop_stale(store) == [G1]
    assert PEOPLE["alice"] not in every_word_of(store)


async def test_recording_messages_moves_the_count_without_a_reload(store: GraphStore) -> None:
    """The recorder's own messages move the count and the model with it (nothing a fact read holds changed): no
    reload; a renamed member's new name is read in place, on the facts about them and reported by them."""
    p = await populate(store)
    await agree(store, ASK_ABOUT_ALICE)
    model = fact_model.model_of(store)
    loads = model.loads
    await p.say(GENERAL, "bob", "anyone around?", T0 + timedelta(days=2))
    await agree(store, ASK_ABOUT_ALICE)
    assert model.loads == loads
    renamed = User(id=PEOPLE["alice"], name="alice", display_name="Alicia")
    message = Message(id=p.mid(), guild_id=G1, channel_id=GENERAL, author_id=renamed.id, content="hi", created_at=T0)
    await record_batch(store, [message], {renamed.id: renamed}, {G1: [renamed]})
    found = await agree(store, ASK_ABOUT_ALICE)
    assert model.loads == loads
    assert "Alicia" in {name for facts in found.values() for f in facts for name in f.about}
    assert "Alicia" in {r[1] for facts in found.values() for f in facts for r in f.reporters}


async def test_this_process_extraction_is_read_in_place(store: GraphStore) -> None:
    """An extraction of this process (a new fact superseding one held, a corroboration of one held, an entity renamed,
    a new link) is read into the model in place, not by reading the guild again, and every answer after it is
    the statement's."""
    p = await populate(store)
    rng = random.Random(7)
    for _ in range(10):
        await agree(store, request(rng))
    model = fact_model.model_of(store)
    loads = model.loads
    t = T0 + timedelta(days=5)
    m1 = await p.say(GENERAL, "bob", "I moved to Munich, bye Berlin", t)
    m2 = await p.say(GENERAL, "eve", "Alice is really moving to Austin", t + timedelta(seconds=10))
    key = await p.episode(GENERAL, [m1, m2])
    austin = p.entity("austin", "Austin TX", "place", ("ATX", "Austin"))  # the same entity, renamed
    munich = p.entity("munich", "Munich", "place")
    moved = p.fact("bob_munich_again", "Bob lives in Munich", [U("bob")], m1, mentions=[E(munich.uuid)],
                   supersedes=["bob_berlin"], importance=7)  # fmt: skip
    corroborated = Corroboration(
        fact_uuid=p.facts["alice_austin"], report=Report(user_id=PEOPLE["eve"], message_id=m2.id, at=m2.created_at)
    )
    await write_episode(store, EpisodeWrite(key=key, guild_id=G1, summary="moves", entities=(austin, munich),
                                            relations=(RelationWrite(entity_uuid=munich.uuid, kind="home", target=U("bob")),),
                                            facts=(moved,), corroborations=(corroborated,)))  # fmt: skip
    found = 0
    for _ in range(80):
        found += sum(1 for facts in (await agree(store, request(rng))).values() for f in facts if f.uuid == moved.uuid)
    assert found > 0
    assert model.loads == loads  # in place


def assert_terms_are_the_texts(store: GraphStore) -> int:
    """Every held fact's terms are its text's content words by their stems, then its subjects' names' (as its reply
    view shows them), and every view a reply made ranks by them as by its text; how many facts were checked."""
    from recall.ranking import fact_terms

    checked = 0
    for held in fact_model.model_of(store).guilds.values():
        for f in held.facts.values():
            shown = [name or subject for subject, name in f.about]
            assert f.terms == tuple(stem(w) for w in content_words(" ".join([f.text, *shown]))), f
            assert f.terms[: f.text_terms] == tuple(stem(w) for w in content_words(f.text)), f
            assert all(held.interned[t] is t for t in f.terms)  # one object a term in the guild
            checked += 1
        for made in held.views.values():
            for view in made.values():
                for whole in (True, False):
                    assert fact_terms(view, whole=whole) == fact_terms(replace(view, terms=None), whole=whole), view
    return checked


async def test_the_terms_held_are_those_of_the_text_after_every_change_in_place(store: GraphStore) -> None:
    """What ranking compares of a fact is made once, as the fact enters the model, and again when a write of this
    process changes it in place: a member renamed (their facts' subjects), an extraction superseding, corroborating
    and renaming an entity. Each time every held fact's terms are what its text and subjects give."""
    p = await populate(store)
    rng = random.Random(3)
    for _ in range(10):
        await agree(store, request(rng))
    model = fact_model.model_of(store)
    loads = model.loads
    assert assert_terms_are_the_texts(store) > 5
    renamed = User(id=PEOPLE["alice"], name="alice", display_name="Alicia")
    message = Message(id=p.mid(), guild_id=G1, channel_id=GENERAL, author_id=renamed.id, content="hi", created_at=T0)
    await record_batch(store, [message], {renamed.id: renamed}, {G1: [renamed]})
    await agree(store, ASK_ABOUT_ALICE)
    assert stem("alicia") in {
        t for f in model.guilds[G1].facts.values() if PEOPLE["alice"] in dict(f.about) for t in f.terms or ()
    }
    assert assert_terms_are_the_texts(store) > 5
    t = T0 + timedelta(days=5)
    m1 = await p.say(GENERAL, "bob", "I moved to Munich, bye Berlin", t)
    key = await p.episode(GENERAL, [m1])
    austin = p.entity("austin", "Austin Texas", "place", ("ATX", "Austin"))
    munich = p.entity("munich", "Munich", "place")
    moved = p.fact("bob_munich_again", "Bob lives in Munich", [U("bob"), E(munich.uuid)], m1, supersedes=["bob_berlin"])
    corroborated = Corroboration(
        fact_uuid=p.facts["alice_austin"], report=Report(user_id=PEOPLE["bob"], message_id=m1.id, at=m1.created_at)
    )
    await write_episode(store, EpisodeWrite(key=key, guild_id=G1, summary="moves", entities=(austin, munich), facts=(moved,),
                                            corroborations=(corroborated,)))  # fmt: skip
    for _ in range(20):
        await agree(store, request(rng))
    assert model.loads == loads  # in place
    assert stem("munich") in (model.guilds[G1].facts[moved.uuid].terms or ())
    assert assert_terms_are_the_texts(store) > 5


Writer = Callable[[Populated], Awaitable[Any]]


async def _command_fact(p: Populated) -> None:
    said = p.messages[0]
    fact = FactWrite(uuid="f" * 32, text="Bob likes tea", about=(NodeRef(kind="user", id=PEOPLE["bob"]),),
                     source_message_ids=(said.id,), valid_at=said.created_at, reports=())  # fmt: skip
    await write_command_facts(p.store, G1, [fact])


async def _close(p: Populated) -> None:
    said = await p.say(GENERAL, "bob", "one more", T0 + timedelta(days=1))
    await close_episode(p.store, EpisodeClose(key="k-new", uuid="e" * 32, guild_id=G1, channel_id=GENERAL,
                                              started_at=said.created_at, ended_at=said.created_at,
                                              message_ids=(said.id,), participant_ids=(said.author_id,)))  # fmt: skip


WRITERS: dict[str, Writer] = {
    "record messages": lambda p: record_messages(p.store, [Message(id=p.mid(), guild_id=G1, channel_id=GENERAL,
                                                                   author_id=PEOPLE["bob"], content="hi", created_at=T0)]),
    "upsert users": lambda p: upsert_users(p.store, [User(id=PEOPLE["bob"], name="bob", display_name="Bobby")], G1),
    "upsert users, no guild": lambda p: upsert_users(p.store, [User(id=PEOPLE["bob"], name="bob", display_name="B")]),
    "upsert guild": lambda p: upsert_guild(p.store, Guild(id=G1, name="Renamed")),
    "upsert channel": lambda p: upsert_channel(p.store, Channel(id="110000000000000009", guild_id=G1, name="new")),
    "set mode": lambda p: set_mode(p.store, G1, THREAD, "private"),
    "set visibility": lambda p: set_visibility(p.store, G1, THREAD, "restricted"),
    "command facts": _command_fact,
    "close episode": _close,
    "mark episode": lambda p: mark_episode(p.store, p.episodes[0], EpisodeStatus.FAILED),
    "edit message": lambda p: edit_message(p.store, p.messages[1].id, "edited", T0 + timedelta(days=1)),
    "delete message": lambda p: delete_message(p.store, p.messages[1].id),
    "opt out": lambda p: opt_out(p.store, PEOPLE["bob"]),
    "forget everywhere": lambda p: forget_user(p.store, PEOPLE["alice"]),
    "forget in the guild": lambda p: forget_user(p.store, PEOPLE["alice"], G1),
    "retention": lambda p: apply_retention(p.store, 1, 1, now=T0 + timedelta(days=400)),
    "retire expired": lambda p: retire_expired(p.store, T0 + timedelta(days=400)),
    "delete facts": lambda p: delete_facts(p.store, G1, [next(iter(p.facts.values()))], []),
    "erase channel": lambda p: erase_channel(p.store, G1, THREAD),
    "reset guild": lambda p: reset_guild(p.store, G1, []),
    "user cap": lambda p: enforce_user_cap(p.store, 1, T0 + timedelta(days=400)),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(WRITERS))
async def test_every_writer_moves_its_guilds_count(store: GraphStore, name: str) -> None:
    """Each writer, run once on the busy graph, moves G1's change count in its own transaction, and the model's next
    answer is the statement's (a writer that said it changes nothing facts read, and did, fails here)."""
    p = await populate(store)
    asked = {**ASK_ABOUT_ALICE, "author_id": PEOPLE["dave"], "mentioned_ids": [PEOPLE["alice"], PEOPLE["bob"]],
             "names": ["alice", "bob", "dave", "acme"], "text": "alice bob dave acme austin"}  # fmt: skip
    await agree(store, asked)
    before = (await fact_model.lookup(store, G1)).count
    await WRITERS[name](p)
    after = (await fact_model.lookup(store, G1)).count
    assert after != before, (name, before, after)
    await agree(store, asked)


# --- the facts' embeddings, held compactly and scored in memory ---------------------------------------------------
def _unit(values: list[float]) -> list[float]:
    norm = math.sqrt(sum(v * v for v in values)) or 1.0
    return [v / norm for v in values]


def _held(uuid: str, text: str, vector: list[float] | None, importance: int = 5) -> fact_model.HeldFact:
    return fact_model.HeldFact(
        uuid=uuid, text=text, category=None, importance=importance, confidence=None, valid_at=None,
        valid_key=math.inf, ends=math.inf, audience=(GENERAL,), about=(("m1", "Mia"),), mentions=(),
        sources=(), reporters=(), vector=fact_model.quantized(vector),
    )  # fmt: skip


@given(st.lists(st.lists(st.floats(-1, 1), min_size=8, max_size=8), min_size=2, max_size=12),
       st.lists(st.floats(-1, 1), min_size=8, max_size=8))  # fmt: skip
def test_held_vectors_score_as_their_cosine_to_within_the_rounding(vectors: list[list[float]], query: list[float]) -> None:
    assume(any(query) and all(any(v) for v in vectors))
    facts = [_held(f"f{i}", "x", _unit(v)) for i, v in enumerate(vectors)]
    asked = _unit(query)
    scores = fact_model.similarities(facts, asked)
    for i, v in enumerate(vectors):
        exact = sum(a * b for a, b in zip(_unit(v), asked))
        assert abs(scores[f"f{i}"] - exact) <= 8 * (0.5 / 127)  # half a step per component, 8 components
    assert all(len(f.vector) == 8 for f in facts)  # a byte a dimension


def test_a_fact_without_a_vector_or_of_another_size_is_not_scored() -> None:
    facts = [_held("a", "x", [1.0, 0.0]), _held("b", "x", None), _held("c", "x", [1.0, 0.0, 0.0])]
    assert set(fact_model.similarities(facts, [1.0, 0.0])) == {"a"}
    assert fact_model.similarities(facts, None) == {}


def test_the_named_members_pool_holds_the_facts_nearest_the_message_in_other_words() -> None:
    """Mia has more facts than the pool takes; the one that answers shares no word with the question and is the least
    important: with the message's embedding it is in the pool, drawn in turn with the statement's order."""
    guild = fact_model.GuildFacts(count=1, channels={GENERAL: ("shared", None)})
    for i in range(6):
        guild.add(_held(f"plain{i}", f"Mia mentioned the weather {i}", [0.0, 1.0], importance=9))
    guild.add(_held("answer", "Mia took up the cello", [1.0, 0.0], importance=1))
    found = fact_model.Lookup(people=[{"id": "m1", "name_lower": "mia", "display_lower": "mia"}], keyed=[], searched=[],
                              count=1, parent=None)  # fmt: skip
    asked: dict[str, Any] = {"author_id": "someone", "names": ["mia", "music"], "channel_id": GENERAL, "now": T0,
                             "author_limit": 5, "pool": 3, "limit": 5, "hop_limit": 5}  # fmt: skip
    without = {f.uuid for _, f, _ in fact_model.reply_facts_held(guild, found, **asked)}
    near = {f.uuid for _, f, _ in fact_model.reply_facts_held(guild, found, **asked, vector=_unit([1.0, 0.1]))}
    assert "answer" not in without and len(without) == 3
    assert "answer" in near and len(near) == 3
    assert fact_model.alternated([guild.facts["plain0"]], [guild.facts["answer"], guild.facts["plain0"]]) == [
        guild.facts["plain0"],
        guild.facts["answer"],
    ]


async def test_a_replys_candidates_are_ordered_by_their_held_embeddings(store: GraphStore) -> None:
    """Facts written with their embeddings are held with them: `similar_facts` orders a reply's candidates by their
    similarity to the message's vector, from memory, and says nothing of a fact without one or without a vector."""
    p = await populate(store)
    said = p.messages[0]
    about = (NodeRef(kind="user", id=PEOPLE["bob"]),)
    axis = [0.0] * 384

    def fact(uuid: str, text: str, at: int | None) -> FactWrite:
        vector = None if at is None else tuple(1.0 if i == at else 0.0 for i in range(384))
        return FactWrite(uuid=uuid, text=text, about=about, source_message_ids=(said.id,), valid_at=said.created_at,
                         reports=(), embedding=vector)  # fmt: skip

    await write_command_facts(store, G1, [fact("a" * 32, "Bob likes tea", 0), fact("b" * 32, "Bob took up the cello", 1),
                                          fact("c" * 32, "Bob is tall", None)])  # fmt: skip
    with fact_model.one_count():
        await context_reads.reply_facts(store, FactRequest(G1, "nobody", [], ["bob"], [], "bob", [], T0 + timedelta(days=1)))
        uuids = ["a" * 32, "b" * 32, "c" * 32, "unknown"]
        music = [*axis[:1], 1.0, *axis[2:]]
        assert await context_reads.similar_facts(store, G1, uuids, music) == ["b" * 32, "a" * 32]
        assert await context_reads.similar_facts(store, G1, uuids, None) == []
