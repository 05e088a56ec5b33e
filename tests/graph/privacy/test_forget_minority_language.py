"""Other members' words are never a forgotten member's to lose: a member whose name is a common word of any
language the names rule supports ("Pero", Spanish for "but") leaves every other member's message as it was
written, but for mentions of them (`<@id>`), however few of the guild write that language and whatever a sample
of its messages says it speaks. On the real engine, through the forget's request as every caller runs it; two
guilds of very different sizes share it, and the member's own guild is mostly English."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from common.names import SUPPORTED_LANGUAGES
from common.text import redact
from graph.models import Channel, Guild, Message, User
from graph.privacy.forget import run_request, with_scope
from graph.privacy.guards.consent import opt_out
from graph.privacy.requests import Request
from graph.store import GraphStore
from graph.writes.discord_records import upsert_channel, upsert_guild, upsert_users
from graph.writes.messages import record_messages
from tests.support.common_words import common_words

T0 = datetime(2024, 5, 3, 18, 0, tzinfo=UTC)
ENGLISH = [
    "did anyone get the build working on the new server",
    "the kernel update broke my wifi again",
    "thanks, that fixed it for me",
    "I think we should meet on Saturday at the station",
    "has anyone tried the new release yet",
]
_ids = itertools.count(700_000_000_000_000_000)


def _id() -> str:
    return str(next(_ids))


class Guild2:
    """A guild of its own ids (a fresh one per example, so examples share the engine and never each other's data)."""

    def __init__(self, store: GraphStore) -> None:
        self.store, self.guild, self.channel = store, _id(), _id()
        self.messages: list[Message] = []
        self.at = T0

    async def open(self, members: dict[str, str]) -> dict[str, str]:
        await upsert_guild(self.store, Guild(id=self.guild, name="Club"))
        await upsert_channel(self.store, Channel(id=self.channel, guild_id=self.guild, name="general"))
        ids = {key: _id() for key in members}
        users = [User(id=ids[key], name=f"user{ids[key][-6:]}", display_name=name) for key, name in members.items()]
        await upsert_users(self.store, users, self.guild)
        return ids

    async def say(self, author: str, *texts: str) -> None:
        batch = []
        for text in texts:
            self.at += timedelta(minutes=1)
            batch.append(
                Message(
                    id=_id(), guild_id=self.guild, channel_id=self.channel, author_id=author, content=text, created_at=self.at
                )
            )
        await record_messages(self.store, batch)
        self.messages += batch


async def _forget(store: GraphStore, user_id: str) -> tuple[bool, dict[str, str], tuple[str, ...]]:
    request = await with_scope(store, Request(user_id, None))
    await opt_out(store, user_id)
    report = await run_request(store, request)
    found = await store.driver.execute_query(
        "MATCH (m:Message) RETURN m.id AS id, m.content AS c", database_=store.engine.database
    )
    withheld = report.scope.withheld if report.scope else ()
    return report.clean, {r["id"]: r["c"] for r in found.records}, withheld


def _others_unchanged(g: Guild2, forgotten: str, stored: dict[str, str]) -> list[tuple[str, str]]:
    """Every other member's message as written, but for mentions of the forgotten member: (written, stored) of
    those that differ."""
    return [
        (m.content, stored.get(m.id, "<gone>"))
        for m in g.messages
        if m.author_id != forgotten and stored.get(m.id) != redact(m.content, [forgotten])
    ]


async def test_a_word_of_a_minority_language_stays_in_others_messages(store: GraphStore) -> None:
    big = Guild2(store)  # another guild in the engine, far larger, in English only
    big_ids = await big.open({"a": "Dana", "b": "Lee"})
    for n in range(20):
        await big.say(big_ids["a" if n % 2 else "b"], *ENGLISH)
    g = Guild2(store)
    ids = await g.open({"pero": "Pero", "ana": "Ana", "bob": "Bob", "carl": "Carl"})
    for _ in range(60):  # the guild speaks English; a sample of its messages finds no Spanish
        await g.say(ids["bob"], *ENGLISH)
    spanish = [f"pero no funciona, {n}" if n % 2 else f"Pero ya lo probé {n} veces" for n in range(10)]
    await g.say(ids["ana"], *spanish)
    await g.say(ids["carl"], f"<@{ids['pero']}> did you see this?")
    await g.say(ids["pero"], "hola a todos")
    clean, stored, withheld = await _forget(store, ids["pero"])
    assert clean
    assert not _others_unchanged(g, ids["pero"], stored), "a Spanish word rewritten as the forgotten member's name"
    assert stored[g.messages[-2].id] == "[forgotten] did you see this?"  # a mention is theirs: it goes
    assert "Pero" in withheld  # and the report says the name was not matched in plain text


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True, database=None)
@given(data=st.data())
async def test_a_name_that_is_a_common_word_anywhere_changes_no_other_members_message(
    store: GraphStore, data: st.DataObject
) -> None:
    language = data.draw(st.sampled_from(SUPPORTED_LANGUAGES), "language")
    word = data.draw(st.sampled_from(common_words(language)), "word")
    spelled = data.draw(st.sampled_from([word, word.capitalize(), word.upper()]), "spelled")
    g = Guild2(store)
    ids = await g.open({"member": spelled, "other": "Xqzt", "third": "Wyvx"})
    filler = data.draw(st.lists(st.sampled_from(ENGLISH), min_size=0, max_size=8), "filler")
    await g.say(ids["other"], *filler, f"{word} is what I said", f"so {word.capitalize()}, {word}!", f"<@{ids['member']}> {word}")
    await g.say(ids["third"], f"{word.upper()}?", f"'{word}'")
    await g.say(ids["member"], f"I am {spelled}")
    clean, stored, _ = await _forget(store, ids["member"])
    assert clean
    assert not _others_unchanged(g, ids["member"], stored), f"{language} {word!r}"
