"""Opt-outs hold where data is written: an operator's opt-out (another process) is honoured by a running
bot at once, a first message that opts out stores nothing of its sender, and an opted-out member's
`<@id>` mention does not stay in what others said."""

from __future__ import annotations

import logging
import re
from datetime import timedelta
from pathlib import Path

from bot.memory._forget_me import forget_everything
from bot.memory._status import OPTED_OUT
from common import events
from graph.store import GraphStore
from tests.bot.harness import AT, Harness
from tests.support.busy_server import PEOPLE, populate
from tests.support.discord_doubles import MockDMChannel, sent_texts
from tests.support.scripted import count
from tests.support.scripted_llm import ScriptedLLMServer

NEWCOMER = "300000000000000077"


async def test_an_opt_out_by_another_process_holds_in_a_running_bot(store: GraphStore, harness: Harness) -> None:
    await populate(store)
    judy = harness.member("judy")
    before = harness.message(judy, "before the operator acted", at=AT)
    await harness.deliver(before)
    assert await count(store, "MATCH (m:Message {id: $id}) RETURN count(m) AS n", id=str(before.id)) == 1

    await store.opt_out(PEOPLE["judy"])  # as `grapevine forget` does, in its own process: the bot's cache is stale
    after = harness.message(judy, "after the operator acted", at=AT + timedelta(minutes=1))
    await harness.deliver(after)
    bob = harness.member("bob")
    mention = harness.message(bob, f"hey <@{PEOPLE['judy']}> you there?", at=AT + timedelta(minutes=2))
    await harness.deliver(mention)

    assert await count(store, "MATCH (m:Message {id: $id}) RETURN count(m) AS n", id=str(after.id)) == 0
    stored = await count(store, "MATCH (m:Message {id: $id}) WHERE m.content CONTAINS $uid RETURN count(m) AS n",
                         id=str(mention.id), uid=PEOPLE["judy"])  # fmt: skip
    assert stored == 0
    assert await count(store, "MATCH (m:Message {id: $id}) RETURN count(m) AS n", id=str(mention.id)) == 1


async def test_a_first_message_opt_out_stores_nothing_of_its_sender(store: GraphStore, harness: Harness) -> None:
    await populate(store)
    newcomer = harness.member("newcomer", id=int(NEWCOMER), display_name="Newcomer")
    ask = harness.message(newcomer, "memory opt-out", to_bot=True, at=AT)
    await harness.deliver(ask)
    assert sent_texts(ask.reply) == [OPTED_OUT]

    assert await count(store, "MATCH (u:User {id: $id}) RETURN count(u) AS n", id=NEWCOMER) == 0
    assert await count(store, "MATCH (m:Message) WHERE m.author_id = $id RETURN count(m) AS n", id=NEWCOMER) == 0
    assert await count(store, "MATCH (m:Message {id: $id}) RETURN count(m) AS n", id=str(ask.id)) == 0


async def test_a_whole_scenario_writes_no_raw_discord_id_to_the_log(
    store: GraphStore, harness: Harness, llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    """Messages in a guild and a DM, a reply, remember, opt-out and forget-me: every log line is scanned."""
    p = await populate(store)
    log = tmp_path / "events.jsonl"
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    charlie, bob = harness.member("charlie"), harness.member("bob")
    try:
        events.configure("INFO", file=log)
        await harness.deliver(harness.message(bob, f"hey <@{PEOPLE['charlie']}> climbing later?", at=AT))
        llm_server.push("Hi Charlie!")
        await harness.deliver(harness.message(charlie, "hello bot", channel=MockDMChannel(recipient=charlie), guild=None, at=AT))
        await harness.deliver(harness.message(bob, f"remember that <@{PEOPLE['charlie']}> climbs", to_bot=True,
                                              at=AT + timedelta(minutes=1), mentions=[charlie]))  # fmt: skip
        await harness.deliver(
            harness.message(harness.member("judy"), "memory opt-out", to_bot=True, at=AT + timedelta(minutes=2))
        )
        await forget_everything(harness.bot.services, PEOPLE["charlie"], ["charlie", "Charlie"])
    finally:
        root.handlers, root.level = handlers, level
    text = log.read_text()
    ids = [*PEOPLE.values(), *(m.id for m in p.messages)]
    assert len(text.splitlines()) >= 5
    assert [i for i in ids if i in text] == []
    assert re.findall(r"dm:\d+", text) == [] and "dm:u-" in text  # the DM scope was logged, pseudonymised
