"""A fact first told in a restricted #staff and told again in the shared #general: the repeat is a new source, so
#general joins the fact's audience and a reply there may recall it, whether the repeat is a restatement another
episode extracted (same words, same subjects: corroborated, not stored twice) or a corroboration resolution made.
The repeat's message is the new source, so deleting it narrows the audience back to #staff, and so does a forget of
the member who repeated it (in the guild or everywhere): what they told is no longer held, so it widens nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest

from common.settings import ContextSettings
from graph.models import Corroboration, EpisodeWrite, Message, Report
from graph.privacy.deletion import delete_and_redact
from graph.privacy.erasure import erase_messages
from graph.store import GraphStore
from graph.writes.episodes import write_episode
from recall.assemble import ContextRequest
from recall.gather import build_context
from tests.support.busy_server import G1, GENERAL, PEOPLE, U
from tests.support.topics_graph import NOW, STAFF, Topical, topical

VAULT = "Charlie says the vault code is 4417"
QUESTION = "what do you know about charlie and the vault code?"


async def _context(store: GraphStore, channel_id: str) -> str:
    req = ContextRequest(
        guild_id=G1, channel_id=channel_id, author_id=PEOPLE["bob"], message_text=QUESTION, message_id=None, at=NOW
    )
    ctx = await build_context(store, req, ContextSettings())
    return "\n".join(line for part in ctx.parts for line in part.lines)


async def _told_in_staff(t: Topical) -> str:
    msg = await t.p.say(STAFF, "charlie", "the vault code is 4417, keep it here", NOW - timedelta(days=2))
    key = await t.p.episode(STAFF, [msg])
    fact = t.p.fact("vault", VAULT, [U("charlie")], msg, importance=9)
    await write_episode(t.p.store, EpisodeWrite(key=key, guild_id=G1, facts=(fact,)))
    assert VAULT not in await _context(t.p.store, GENERAL)
    return fact.uuid


async def _restated_in_general(t: Topical, author: str, text: str) -> Message:
    repeat = await t.p.say(GENERAL, author, text, NOW - timedelta(days=1))
    key = await t.p.episode(GENERAL, [repeat])
    again = t.p.fact("vault_again", VAULT, [U("charlie")], repeat, importance=9)
    await write_episode(t.p.store, EpisodeWrite(key=key, guild_id=G1, facts=(again,)))
    return repeat


async def test_a_staff_fact_restated_in_general_by_its_reporter_is_recalled_there(store: GraphStore) -> None:
    t = await topical(store)
    await _told_in_staff(t)
    repeat = await _restated_in_general(t, "charlie", "fyi all, the vault code is 4417")

    assert VAULT in await _context(store, GENERAL)
    assert VAULT in await _context(store, STAFF)
    assert (await erase_messages(store, [repeat.id])).messages == 1  # the #general source gone, the fact is #staff's alone again
    assert VAULT not in await _context(store, GENERAL)
    assert VAULT in await _context(store, STAFF)


async def test_a_staff_fact_restated_in_general_by_another_member_is_recalled_there(store: GraphStore) -> None:
    t = await topical(store)
    await _told_in_staff(t)
    await _restated_in_general(t, "alice", "charlie told me the vault code is 4417")

    assert VAULT in await _context(store, GENERAL)


async def test_a_corroboration_in_general_adds_general_to_the_audience(store: GraphStore) -> None:
    t = await topical(store)
    vault = await _told_in_staff(t)
    repeat = await t.p.say(GENERAL, "alice", "yes, the vault code is 4417", NOW - timedelta(days=1))
    key = await t.p.episode(GENERAL, [repeat])
    report = Report(user_id=repeat.author_id, message_id=repeat.id, at=repeat.created_at)
    await write_episode(
        store, EpisodeWrite(key=key, guild_id=G1, corroborations=(Corroboration(fact_uuid=vault, report=report),))
    )

    assert VAULT in await _context(store, GENERAL)
    assert (await erase_messages(store, [repeat.id])).messages == 1
    assert VAULT not in await _context(store, GENERAL)


@pytest.mark.parametrize("everywhere", [False, True], ids=["a moderator's forget", "forget-me"])
async def test_a_forget_of_who_restated_it_in_general_narrows_it_back_to_staff(store: GraphStore, everywhere: bool) -> None:
    t = await topical(store)
    await _told_in_staff(t)
    await _restated_in_general(t, "alice", "charlie told me the vault code is 4417")
    assert VAULT in await _context(store, GENERAL)

    await delete_and_redact(store, PEOPLE["alice"], None if everywhere else G1)
    assert VAULT not in await _context(store, GENERAL)
    assert VAULT in await _context(store, STAFF)
