"""`/memory export` and "@bot memory export": everything stored about and from the member reaches their DMs
as JSON files (paged when large), never a channel; closed DMs get one line; the log holds counts only."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.memory._export import DMS_CLOSED, INTRO, NOTHING, SECTIONS, SENT, deliver, pages
from common import events
from graph.models import EpisodeWrite, User
from graph.privacy.export import export_member
from graph.store import GraphStore
from graph.writes.discord_records import upsert_users
from graph.writes.episodes import write_episode
from tests.bot.harness import AT, Harness
from tests.support.busy_server import G1, G2, GENERAL, OTHER, PEOPLE, E, U, populate
from tests.support.discord_doubles import DMInbox, MockDMChannel, MockInteraction, dms_closed, invoke, sent_texts
from tests.support.scripted_llm import ScriptedLLMServer

CHARLIE = PEOPLE["charlie"]


def _documents(inbox: DMInbox) -> list[dict[str, Any]]:
    return [json.loads(data) for _, data in inbox.files]


async def test_a_plain_language_export_goes_to_the_dm_and_holds_facts_messages_and_summaries(
    store: GraphStore, harness: Harness
) -> None:
    p = await populate(store)
    told = await p.say(GENERAL, "bob", "his sister is a nurse btw", AT)
    nurse = p.fact("sister_nurse", "Charlie's sister is a nurse", [E(p.entities["sister"])], told)
    asked = await p.say(GENERAL, "bob", "is Charlie coming to the game?", AT)
    await write_episode(
        store,
        EpisodeWrite(
            key=await p.episode(GENERAL, [told, asked]), guild_id=G1, summary="Bob wonders if Charlie comes.", facts=(nurse,)
        ),
    )
    charlie = harness.member("charlie")
    inbox = DMInbox(charlie)
    ask = harness.message(charlie, "memory export", to_bot=True)
    await harness.deliver(ask)

    assert sent_texts(ask.reply) == [SENT.format(files="1 file")]
    assert "file" not in ask.reply.await_args.kwargs and "files" not in ask.reply.await_args.kwargs
    harness.general.send.assert_not_awaited()
    assert inbox.texts == [INTRO] and [name for name, _ in inbox.files] == ["grapevine-export.json"]
    [doc] = _documents(inbox)
    assert doc["user_id"] == CHARLIE and doc["part"] == 1 and doc["parts"] == 1
    said = {m["content"] for m in doc["messages"]}
    assert {"my sister lives there", "noted Alice"} <= said
    assert str(ask.id) in {m["id"] for m in doc["messages"]}  # the request itself was stored, and is theirs
    facts = {f["uuid"]: f for f in doc["facts"]}
    assert p.facts["charlie_celtics"] in facts
    celtics = facts[p.facts["charlie_celtics"]]
    assert celtics["about_them"] is True and celtics["valid_at"] is not None
    assert celtics["reports"] and all(r["message_id"] for r in celtics["reports"])  # provenance: who, from which message
    assert doc["summaries"] and all(s["summary"] for s in doc["summaries"])
    # what is about him without naming his account: a fact about his sister told by Bob (by name, not id), and the
    # summary that names him ("Charlie": a given name no one else in the guild carries)
    [about_sister] = [f for f in doc["facts_naming_them"] if f["uuid"] == p.facts["sister_nurse"]]
    assert [r["by"] for r in about_sister["reports"]] == ["Bob"] and PEOPLE["bob"] not in json.dumps(doc)
    assert [s["summary"] for s in doc["summaries_naming_them"]] == ["Bob wonders if Charlie comes."]


async def test_a_large_export_is_paged_into_files_under_the_bound(store: GraphStore, harness: Harness) -> None:
    await populate(store)
    dave = harness.member("dave")  # a dozen job-offer messages in a thread, facts and summaries
    inbox = DMInbox(dave, limit_bytes=1000)  # as if Discord took no more than that: a page over it is refused
    whole = await export_member(store, PEOPLE["dave"])
    assert whole is not None

    answer = await deliver(harness.bot.services, dave, max_bytes=1000)

    docs = _documents(inbox)
    assert answer == SENT.format(files=f"{len(docs)} files") and len(docs) >= 3
    assert all(len(data) <= 1000 for _, data in inbox.files)
    assert [d["part"] for d in docs] == list(range(1, len(docs) + 1)) and {d["parts"] for d in docs} == {len(docs)}
    assert inbox.files[0][0] == f"grapevine-export-part-1-of-{len(docs)}.json"
    for section in SECTIONS:
        assert [x for d in docs for x in d[section]] == whole[section]  # every record once, in order
    assert inbox.texts[0] == INTRO and inbox.texts[1:] == [None] * (len(docs) - 1)


def test_pages_refuse_a_record_larger_than_a_file() -> None:
    data = {"user_id": "1", "facts": [], "messages": [{"id": "2", "content": "x" * 5000}], "summaries": []}
    with pytest.raises(ValueError, match="alone is larger than a 1000-byte file"):
        pages(data, max_bytes=1000)
    assert len(pages(data, max_bytes=6000)) == 1


async def test_closed_dms_are_said_in_one_ephemeral_line_and_nothing_is_sent_elsewhere(
    store: GraphStore, harness: Harness
) -> None:
    await populate(store)
    charlie = harness.member("charlie")
    charlie.send.side_effect = dms_closed()
    interaction = MockInteraction(user=charlie, guild=harness.guild, channel=harness.general)
    memory = harness.memory
    await invoke(memory.export_command, memory, interaction)

    assert interaction.response.defer.await_args.kwargs["ephemeral"] is True
    assert sent_texts(interaction.followup.send) == [DMS_CLOSED]
    call = interaction.followup.send.await_args
    assert call.kwargs["ephemeral"] is True and "file" not in call.kwargs and "files" not in call.kwargs
    harness.general.send.assert_not_awaited()


async def test_nothing_stored_gets_one_line(store: GraphStore, harness: Harness) -> None:
    await populate(store)
    stranger = harness.member("stranger", id=300000000000000088)
    inbox = DMInbox(stranger)
    assert await deliver(harness.bot.services, stranger) == NOTHING
    assert inbox.files == []


async def test_the_log_holds_no_content_or_id_of_the_export(store: GraphStore, harness: Harness, tmp_path: Path) -> None:
    await populate(store)
    log = tmp_path / "events.jsonl"
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    charlie = harness.member("charlie")
    inbox = DMInbox(charlie)
    try:
        events.configure("INFO", file=log)
        await deliver(harness.bot.services, charlie, max_bytes=2000)
    finally:
        root.handlers, root.level = handlers, level
    text = log.read_text()
    assert '"memory_export"' in text and inbox.files
    for secret in (CHARLIE, "my sister lives there", "noted Alice", "Celtics"):
        assert secret not in text


async def test_an_export_too_large_for_discord_is_refused_by_the_double(harness: Harness) -> None:
    """The double refuses as Discord does (413), so the paging tests above mean something."""
    member = harness.member("charlie")
    DMInbox(member, limit_bytes=10)
    import io

    with pytest.raises(discord.HTTPException) as refused:
        await member.send(file=discord.File(io.BytesIO(b"x" * 11), filename="big.json"))
    assert refused.value.status == 413


async def test_an_export_counts_what_was_told_where_they_could_not_read_and_shows_none_of_it(
    store: GraphStore, harness: Harness, llm_server: ScriptedLLMServer
) -> None:
    """Alice tells the bot in her DMs that Bob owes her money; Charlie says in a guild Bob never joined that Bob owes
    the gym. Bob's export counts both as withheld and shows neither: not their text, not Alice's DM space, not the
    other guild's id or name, not Charlie's nickname there."""
    p = await populate(store)
    bob = harness.member("bob")
    before = await export_member(store, PEOPLE["bob"])
    assert before is not None
    alice = harness.member("alice")
    told = harness.message(
        alice, f"remember that <@{bob.id}> owes me 500 dollars", channel=MockDMChannel(recipient=alice), guild=None,
        mentions=[bob],
    )  # fmt: skip
    await harness.deliver(told)
    assert sent_texts(told.reply)[0].startswith("Got it"), sent_texts(told.reply)
    await upsert_users(store, [User(id=PEOPLE["charlie"], name="charlie", display_name="Chazza")], G2)
    said = await p.say(OTHER, "charlie", f"<@{PEOPLE['bob']}> owes the gym 30 euros", AT, guild=G2)
    owes = p.fact("bob_gym", "Bob owes the gym 30 euros", [U("bob")], said)
    await write_episode(store, EpisodeWrite(key=await p.episode(OTHER, [said], guild=G2), guild_id=G2, facts=(owes,)))

    inbox = DMInbox(bob)
    ask = harness.message(bob, "memory export", to_bot=True)
    await harness.deliver(ask)
    [doc] = _documents(inbox)
    text = json.dumps(doc)
    for secret in (f"dm:{alice.id}", str(alice.id), "500 dollars", "30 euros", G2, "Chazza", "Climbing Gym", OTHER):
        assert secret not in text, secret
    assert doc["withheld"]["facts"] == before["withheld"]["facts"] + 2
    assert {m["guild_id"] for m in doc["memberships"]} <= {G1, f"dm:{bob.id}"}
