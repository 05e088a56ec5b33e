"""`grapevine context --channel` follows the channel's memory scope: the same question in a private
channel and in a shared one differ exactly by the private channel's facts. The real command, as a process,
joined to the test's ArcadeDB server."""

from __future__ import annotations

import uuid
from datetime import timedelta
from pathlib import Path

import pytest

from graph.models import Channel, FactWrite, NodeRef, Report
from graph.privacy.channels import modes, set_visibility
from graph.store import GraphStore
from graph.writes.discord_records import upsert_channel
from graph.writes.episodes import write_command_facts
from recall.assemble import FOLLOW, said_in_full
from tests.support.busy_server import G1, GENERAL, PEOPLE, T0, populate
from tests.support.cli_process import grapevine

STAFF = "110000000000000077"
QUESTION = "what is judy's secret word? is it the Austin one?"


def _fact_lines(output: str) -> set[str]:
    """The lines of the author and related parts of what `grapevine context` prints."""
    part, found = "", []
    for line in output.splitlines():
        if "─" in line and " tokens" in line:
            part = line.strip("─ ").split(":")[0]
        elif part in ("author", "related") and line.startswith(("- ", FOLLOW)):
            found.append(line)
    return set(said_in_full(found))  # a fact under another's attribution, read with it


async def _context(store: GraphStore, tmp_path: Path, channel: str) -> str:
    args = ["context", "--guild", G1, "--channel", channel, "--user", PEOPLE["bob"], "--message", QUESTION]
    done = await grapevine(store, tmp_path, *args)
    assert done.returncode == 0, done.stderr
    return done.stdout


async def test_context_in_a_private_channel_adds_exactly_its_facts(store: GraphStore, tmp_path: Path) -> None:
    if store.engine.name != "arcadedb":
        pytest.skip("the command joins the test's ArcadeDB server; on Neo4j the same Cypher is covered elsewhere")
    p = await populate(store)
    await upsert_channel(store, Channel(id=STAFF, guild_id=G1, name="staff"))
    await set_visibility(store, G1, STAFF, "restricted")
    said = await p.say(STAFF, "judy", "my secret word is zanzibar", T0 + timedelta(days=2))
    secret = FactWrite(
        uuid=uuid.uuid4().hex,
        text="Judy's secret word is zanzibar",
        importance=7,
        valid_at=said.created_at,
        about=(NodeRef(kind="user", id=PEOPLE["judy"]),),
        reports=(Report(user_id=PEOPLE["judy"], message_id=said.id, at=said.created_at),),
        source_message_ids=(said.id,),
    )
    await write_command_facts(store, G1, [secret])

    public = _fact_lines(await _context(store, tmp_path, GENERAL))
    private = _fact_lines(await _context(store, tmp_path, STAFF))
    assert public and public < private
    assert [line for line in private - public] == ["- Judy said on 5 May 2024: Judy's secret word is zanzibar"]


async def test_channels_refuses_to_widen_a_channel_discord_hides(store: GraphStore, tmp_path: Path) -> None:
    """`grapevine channels --set C --mode shared` widens only what Discord shows to @everyone (or what the live bot
    never saw, such as an imported channel): a hidden channel stays private, with a one-line reason."""
    if store.engine.name != "arcadedb":
        pytest.skip("the command joins the test's ArcadeDB server; on Neo4j the same Cypher is covered elsewhere")
    await populate(store)
    imported = "110000000000000078"
    for channel in (STAFF, imported):
        await upsert_channel(store, Channel(id=channel, guild_id=G1, name=f"c{channel[-2:]}"))
    await set_visibility(store, G1, STAFF, "restricted")

    refused = await grapevine(store, tmp_path, "channels", "--guild", G1, "--set", STAFF, "--mode", "shared")
    assert refused.returncode == 1
    assert refused.stderr.strip().count("\n") == 0 and "hidden from @everyone" in refused.stderr, refused.stderr
    assert {c.id: c.mode for c in await modes(store, G1)}[STAFF] == "private"
    widened = await grapevine(store, tmp_path, "channels", "--guild", G1, "--set", imported, "--mode", "shared")
    assert widened.returncode == 0, widened.stderr
    assert {c.id: c.mode for c in await modes(store, G1)}[imported] == "shared"
