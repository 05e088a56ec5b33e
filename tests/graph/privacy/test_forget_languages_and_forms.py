"""A forget compares texts and names in one normal form, and knows the words of every supported language: a name
written with combining marks is still the name (and the audit says so when it stays), and a member nicknamed
with a common word of a language ("Merci", French) leaves others' words as they were written. On the real engine, through the forget's request as every caller runs it."""

from __future__ import annotations

import unicodedata
from datetime import timedelta

from graph.models import Channel, Guild, User
from graph.privacy.forget import run_request, with_scope
from graph.privacy.guards.consent import opt_out
from graph.privacy.requests import Request
from graph.store import GraphStore
from graph.writes.discord_records import upsert_channel, upsert_guild, upsert_users
from tests.support.busy_server import G1, GENERAL, PEOPLE, T0, Populated

FRENCH = [
    "salut tout le monde, je pense que c'est bien",
    "oui mais il faut voir avec le serveur",
    "bonjour à tous, merci pour votre aide",
    "c'est pas mal du tout, on verra demain",
    "je suis d'accord avec toi",
]


async def _guild(store: GraphStore, nick: str) -> Populated:
    p = Populated(store)
    await upsert_guild(store, Guild(id=G1, name="Club"))
    await upsert_channel(store, Channel(id=GENERAL, guild_id=G1, name="general"))
    await upsert_users(store, [User(id=PEOPLE["alice"], name="alice77", display_name=nick)], G1)
    await upsert_users(store, [User(id=PEOPLE["bob"], name="bob", display_name="Bob")], G1)
    return p


async def _forget(store: GraphStore, user_id: str) -> tuple[bool, list[str]]:
    request = await with_scope(store, Request(user_id, None))
    await opt_out(store, user_id)
    report = await run_request(store, request)
    found = await store.driver.execute_query(
        "MATCH (m:Message) RETURN m.content AS c ORDER BY m.id", database_=store.engine.database
    )
    return report.clean, [r["c"] for r in found.records]


async def test_a_name_written_decomposed_is_redacted_and_never_audited_clean_while_it_stays(store: GraphStore) -> None:
    composed = unicodedata.normalize("NFC", "Zoë")
    p = await _guild(store, composed)
    await p.say(GENERAL, "alice", "hello all", T0)
    decomposed = unicodedata.normalize("NFD", f"thanks {composed}! see you, {composed}")
    await p.say(GENERAL, "bob", decomposed, T0 + timedelta(minutes=1))
    clean, texts = await _forget(store, PEOPLE["alice"])
    assert clean
    assert texts == ["thanks [forgotten]! see you, [forgotten]"]


async def test_a_common_word_of_the_guilds_language_is_no_ones_name(store: GraphStore) -> None:
    p = await _guild(store, "Merci")
    await p.say(GENERAL, "alice", "salut", T0)
    for n, text in enumerate([*FRENCH, "merci raphink ;)", "Merci beaucoup Bob"]):
        await p.say(GENERAL, "bob", text, T0 + timedelta(minutes=n + 1))
    clean, texts = await _forget(store, PEOPLE["alice"])
    assert clean
    assert texts == [*FRENCH, "merci raphink ;)", "Merci beaucoup Bob"], "a word of French rewritten as a name"
