"""The read model of a channel's talk (graph/reads/talk_model.py) against the statements it stands in for
(context/conversation.cypher, context/second_round.cypher), on the real engine: the same author, summaries, messages,
chain, matched facts and evidence turns for any request, whether the model holds every window of the channel or
fewer; this process's recorded messages join it in place; and after any writer, a forget above all, the next answer
is the statement's and nothing of a forgotten member is in the process's memory."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import pytest

from common.settings import ContextSettings, RecallTuning
from graph import rows
from graph.models import Message
from graph.privacy.forget import forget_user
from graph.reads import context as context_reads
from graph.reads import fact_model, talk_model
from graph.reads.context import SecondRound
from graph.store import GraphStore
from graph.writes.messages import record_batch
from recall.assemble import ContextRequest
from recall.gather import build_context
from tests.graph.reads.test_fact_model import WRITERS
from tests.support.busy_server import BOT, G1, G2, GENERAL, OTHER, PEOPLE, T0, THREAD, Populated, populate

PLACES = [(G1, GENERAL), (G1, THREAD), (G2, OTHER)]


def conversation_request(p: Populated, rng: random.Random) -> dict[str, Any]:
    """A reply's conversation read, as recall/gather.py asks for it, at any time and with any bounds."""
    guild, channel = rng.choice(PLACES)
    said = [m for m in p.messages if m.channel_id == channel]
    return {
        "guild_id": guild,
        "channel_id": channel,
        "author_id": rng.choice([*PEOPLE.values(), BOT]),
        "at": rng.choice([T0 - timedelta(days=1), T0 + timedelta(seconds=25), T0 + timedelta(hours=3, seconds=15),
                          T0 + timedelta(days=1, minutes=1), T0 + timedelta(days=3), T0 + timedelta(days=400)]),
        "reply_to_id": rng.choice([None, *(m.id for m in p.messages)]),
        "skip_id": rng.choice([None, *(m.id for m in said)]),
        "episodes": rng.choice([1, 2, 5]),
        "messages": rng.choice([1, 3, 30]),
        "chain": rng.choice([1, 41]),
    }  # fmt: skip


def comparable(row: dict[str, Any]) -> tuple[Any, ...]:
    """A conversation row as `conversation` reads it (its lists sorted, times parsed)."""
    return (
        row["author"],
        sorted(
            (
                rows.message_view({"created_at": s["ended_at"], "id": "", "channel_id": "", "author_id": ""}).created_at,
                s["summary"],
            )
            for s in row["summaries"]
        ),  # fmt: skip
        sorted((rows.message_view(m) for m in row["recent"]), key=lambda m: (m.created_at, m.id)),
        sorted((rows.message_view(m) for m in row["chain"]), key=lambda m: (m.created_at, m.id)),
    )


async def hold(store: GraphStore, guild_id: str) -> fact_model.GuildFacts | None:
    """The guild's facts in the model at its count, as a reply's fact read leaves them (None: the guild is gone)."""
    count = (await fact_model.lookup(store, guild_id)).count
    await fact_model.held(store, guild_id, count)
    return fact_model.current(store, guild_id, count)


async def agree(store: GraphStore, asked: dict[str, Any]) -> bool:
    """The conversation from memory (or the statement, when the model cannot answer) is the statement's; whether the
    model answered."""
    guild = await hold(store, asked["guild_id"])
    talk = await fact_model.channel_talk(store, guild, asked["guild_id"], asked["channel_id"]) if guild else None
    answered = (
        talk_model.conversation_held(
            {**guild.talk, asked["channel_id"]: talk},
            guild.channels,
            asked["channel_id"],
            **{k: v for k, v in asked.items() if k not in ("guild_id", "channel_id")},
        )
        if guild is not None and talk is not None
        else None
    )
    held = await context_reads.conversation_talk(store, asked)
    read = await context_reads.conversation_row(store, asked)
    assert comparable(held) == comparable(read), asked
    if answered is not None:
        assert comparable(answered) == comparable(read), asked
    return answered is not None


@pytest.mark.parametrize("windows", [talk_model.HELD_EPISODES, 2])
async def test_the_model_answers_what_the_conversation_statement_answers(
    store: GraphStore, windows: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """For any request over the busy graph, holding every window of a channel or only its last two: the model's
    conversation is the statement's, or it leaves the request to the statement; it answers most of them."""
    monkeypatch.setattr(talk_model, "HELD_EPISODES", windows)
    p = await populate(store)
    rng = random.Random(51)
    answered = sum([await agree(store, conversation_request(p, rng)) for _ in range(150)])
    assert answered > (40 if windows > 5 else 5), answered  # a request for more windows than held goes to the statement


def second_request(p: Populated, rng: random.Random) -> dict[str, Any]:
    guild, channel = rng.choice(PLACES)
    return {
        "guild_id": guild,
        "channel_id": channel,
        "uuids": rng.sample(list(p.facts.values()), rng.randint(0, 6)),
        "message_ids": rng.sample([m.id for m in p.messages], rng.randint(0, 8)),
        "at": rng.choice([T0 + timedelta(seconds=25), T0 + timedelta(days=1, minutes=1), T0 + timedelta(days=3),
                          T0 + timedelta(days=400)]),
        "span": rng.choice([0, 1, 2]),
        "limit": rng.choice([1, 40]),
    }  # fmt: skip


def comparable_round(found: SecondRound) -> tuple[Any, ...]:
    return sorted(found.evidence, key=lambda e: (e[0], e[2].created_at, e[2].id, e[1])), found.matched


@pytest.mark.parametrize("windows", [talk_model.HELD_EPISODES, 2])
async def test_the_second_round_from_the_model_is_the_statements(
    store: GraphStore, windows: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The facts drawn from the recalled messages and the best facts' turns, from memory, are the statement's (its
    evidence asked of the engine only for a turn in a window older than those held)."""
    monkeypatch.setattr(talk_model, "HELD_EPISODES", windows)
    p = await populate(store)
    rng = random.Random(52)
    found = 0
    for _ in range(120):
        asked = second_request(p, rng)
        await hold(store, asked["guild_id"])
        held = await context_reads.second_round(store, context_reads.RoundRequest(**asked))
        read = await context_reads.second_round_read(store, context_reads.RoundRequest(**asked))
        assert comparable_round(held) == comparable_round(read), asked
        found += len(read.evidence) + len(read.matched)
    assert found > 50


async def test_recorded_messages_join_the_held_talk_in_place(store: GraphStore) -> None:
    """This process's recorder's messages (and a later edit of one) are in the next answer from memory, with no
    channel read again; a new member's first message has the channel read again."""
    p = await populate(store)
    asked = {"guild_id": G1, "channel_id": GENERAL, "author_id": PEOPLE["bob"], "at": T0 + timedelta(days=9),
             "reply_to_id": None, "skip_id": None, "episodes": 5, "messages": 30, "chain": 41}  # fmt: skip
    assert await agree(store, asked)
    guild = await hold(store, G1)
    assert guild is not None
    talk = guild.talk[GENERAL]
    said = await p.say(GENERAL, "bob", "anyone around for a game?", T0 + timedelta(days=8), reply_to=p.messages[0].id)
    assert guild.talk[GENERAL] is talk and said.id in talk.messages
    assert await agree(store, {**asked, "reply_to_id": said.id})
    edited = said.model_copy(update={"content": "anyone around for chess?", "edited_at": T0 + timedelta(days=8, hours=1)})
    await record_batch(store, [edited], {}, {})
    assert guild.talk[GENERAL] is talk and talk.messages[said.id].content == "anyone around for chess?"
    assert await agree(store, asked)
    newcomer = Message(id=p.mid(), guild_id=G1, channel_id=GENERAL, author_id="388888888888888888", content="hi",
                       created_at=T0 + timedelta(days=8))  # fmt: skip
    await record_batch(store, [newcomer], {}, {})  # no such member stored: not recorded at all
    assert await agree(store, asked)


def every_word_of(store: GraphStore) -> str:
    return "\n".join(fact_model.model_of(store).strings())


async def test_a_forgotten_member_is_nowhere_in_the_talk(store: GraphStore) -> None:
    """Alice's messages, name and id are held in the channels' talk once replies read them; forget-me leaves none
    of them in memory before it returns, and none after the next replies read the channels again."""
    p = await populate(store)
    for guild, channel in PLACES:
        await agree(store, {"guild_id": guild, "channel_id": channel, "author_id": PEOPLE["bob"],
                            "at": T0 + timedelta(days=9), "reply_to_id": None, "skip_id": None, "episodes": 5,
                            "messages": 30, "chain": 41})  # fmt: skip
    hers = [m.content for m in p.messages if m.author_id == PEOPLE["alice"]]
    held = every_word_of(store)
    assert PEOPLE["alice"] in held and all(text in held for text in hers)
    await forget_user(store, PEOPLE["alice"])
    held = every_word_of(store)
    assert PEOPLE["alice"] not in held and "alice" not in held.casefold() and not [t for t in hers if t in held]
    for guild, channel in PLACES:
        await agree(store, {"guild_id": guild, "channel_id": channel, "author_id": PEOPLE["bob"],
                            "at": T0 + timedelta(days=9), "reply_to_id": None, "skip_id": None, "episodes": 5,
                            "messages": 30, "chain": 41})  # fmt: skip
    held = every_word_of(store)
    assert fact_model.model_of(store).guilds[G1].talk  # read again
    assert PEOPLE["alice"] not in held and "alice" not in held.casefold(), held
    assert not [t for t in hers if t in held]


@pytest.mark.parametrize("name", sorted(WRITERS))
async def test_after_every_writer_the_talk_is_the_statements(store: GraphStore, name: str) -> None:
    """Each writer, run once on the busy graph with its channels' talk held: the next conversation and second round
    from memory are the statements' (a writer whose change the model follows wrongly fails here)."""
    p = await populate(store)
    rng = random.Random(name)
    conversations = [conversation_request(p, rng) for _ in range(6)]
    rounds = [second_request(p, rng) for _ in range(6)]
    for asked in conversations:
        await agree(store, asked)
    await WRITERS[name](p)
    for asked in conversations:
        await agree(store, asked)
    for asked in rounds:
        await hold(store, asked["guild_id"])
        held = await context_reads.second_round(store, context_reads.RoundRequest(**asked))
        assert comparable_round(held) == comparable_round(
            await context_reads.second_round_read(store, context_reads.RoundRequest(**asked))
        ), asked


async def test_a_reply_answered_from_memory_asks_the_engine_its_lookup_and_searches_only(
    store: GraphStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the model holds the guild and the channel, a whole reply build reads the guild's count once (in its fact
    lookup) and asks the engine nothing of what the model answers: no conversation, second round or channel read."""
    p = await populate(store)
    req = ContextRequest(guild_id=G1, channel_id=GENERAL, author_id=PEOPLE["bob"], message_text="where did alice move",
                         message_id=None, at=T0 + timedelta(days=9), reply_to_id=p.messages[1].id)  # fmt: skip
    first = await build_context(store, req, ContextSettings())
    asked: list[str] = []
    real = store.runner.read_plain

    async def counted(name: str, /, **params: Any) -> list[dict[str, Any]]:
        asked.append(name)
        return await real(name, **params)

    monkeypatch.setattr(store.runner, "read_plain", counted)
    again = await build_context(store, req, ContextSettings())
    assert asked.count("context/fact_lookup") == 1, asked
    assert not {"context/guild_count", "context/conversation", "context/second_round", "context/model_channel"} & set(asked)
    assert again.render() == first.render() and "Austin" in again.render()


def search_request(p: Populated, rng: random.Random) -> dict[str, Any]:
    """A reply's recalled searches and passages, at any time, with words its channels' messages hold."""
    guild, channel = rng.choice(PLACES)
    said = [m for m in p.messages if m.channel_id == channel] or p.messages
    words = sorted({w for m in rng.sample(said, min(3, len(said))) for w in m.content.split()})
    return {
        "guild_id": guild,
        "channel_id": channel,
        "text": " ".join(rng.sample(words, min(len(words), rng.randint(1, 4)))),
        "at": rng.choice([T0 - timedelta(days=1), T0 + timedelta(seconds=25), T0 + timedelta(hours=3, seconds=15),
                          T0 + timedelta(days=1, minutes=1), T0 + timedelta(days=3), T0 + timedelta(days=400)]),
        "tuning": RecallTuning(span=rng.choice([timedelta(days=30), timedelta(hours=2), timedelta(days=1)]),
                               span_messages=rng.choice([2000, 3]), older_episodes=rng.choice([66, 1, 2]),
                               passage=rng.random() < 0.7, rarity=rng.random() < 0.7),
        "ids": rng.sample([m.id for m in said], min(len(said), rng.randint(1, 6))),
        "reach": rng.choice([1, 3]),
    }  # fmt: skip


async def searched(store: GraphStore, asked: dict[str, Any], model: bool) -> tuple[Any, ...]:
    talk = await context_reads.conversation(
        store, asked["guild_id"], asked["channel_id"], author_id=PEOPLE["bob"], at=asked["at"], text=asked["text"],
        recall=rng_recall(asked), older_episodes=asked["tuning"].older_episodes, tuning=asked["tuning"], model=model,
    )  # fmt: skip
    turns = await context_reads.passage_turns(
        store, asked["guild_id"], asked["channel_id"], ids=asked["ids"], at=asked["at"], reach=asked["reach"], model=model
    )
    return talk.recalled, talk.around, talk.older, turns


def rng_recall(asked: dict[str, Any]) -> int:
    return 2 if asked["reach"] == 1 else 12


@pytest.mark.parametrize("windows", [talk_model.HELD_EPISODES, 2])
async def test_the_searches_from_the_model_are_the_statements(
    store: GraphStore, windows: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The recalled messages, a quiet channel's older matches and the matches' passages, scored in memory over the
    held talk, are the statements' for any request (each left to its statement when the model does not hold every
    message it reads); and the model answers many of them without the engine."""
    monkeypatch.setattr(talk_model, "HELD_EPISODES", windows)
    p = await populate(store)
    rng = random.Random(53)
    asked_engine: list[str] = []
    real = store.runner.read_plain

    async def counted(name: str, /, **params: Any) -> list[dict[str, Any]]:
        asked_engine.append(name)
        return await real(name, **params)

    found = 0
    for _ in range(120):
        asked = search_request(p, rng)
        await hold(store, asked["guild_id"])
        await agree(store, {"guild_id": asked["guild_id"], "channel_id": asked["channel_id"], "author_id": PEOPLE["bob"],
                            "at": asked["at"], "reply_to_id": None, "skip_id": None, "episodes": 5, "messages": 30,
                            "chain": 41})  # fmt: skip  # the channel's talk held
        monkeypatch.setattr(store.runner, "read_plain", counted)
        held = await searched(store, asked, True)
        monkeypatch.setattr(store.runner, "read_plain", real)
        read = await searched(store, asked, False)
        assert held == read, asked
        recalled, around, older, turns = read
        found += len(recalled) + len(around) + len(older.matches) + len(older.around) + len(turns)
    searches = {"context/recalled", "context/recalled_before", "context/passages"}
    assert found > 100, found
    asked_searches = [n for n in asked_engine if n in searches]
    assert len(asked_searches) < (120 if windows > 5 else 300), asked_searches  # most answered in memory
