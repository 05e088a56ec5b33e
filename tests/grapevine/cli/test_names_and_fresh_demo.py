"""Names where ids are wanted, and a quick start that can be run again.

- `grapevine members NAME` lists who a name stands for (ids, guilds, last seen); `--user Bob`, `--guild NAME`,
  `--channel general`, `forget Bob` take names wherever an id is taken, a name looked up by identity (account name,
  display name, a nickname in the guild asked about); two members called the same are listed with their ids and
  the command stops (exit 1), never guessing.
- The quick start's last step forgets Bob, which opts him out: the next `demo` says why his messages are left out,
  and `demo --fresh` starts the sample over, Bob's opt-out too, without touching another guild."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from graph.models import Channel, Guild, Message, User
from graph.privacy.guards.consent import Consent
from graph.store import GraphStore
from graph.writes.discord_records import upsert_channel, upsert_guild, upsert_users
from graph.writes.messages import record_messages
from tests.support.cli_process import grapevine

GUILD = "833055463833731073"
BOB = "602779366195331079"
OTHER_GUILD, OTHER_CHANNEL, OTHER_BOB = "900000000000000001", "900000000000000002", "900000000000000003"


def _rows(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


async def _another_guild_with_a_bob(store: GraphStore) -> None:
    """Another server, where another member also goes by Bob and Bob (the sample's) wrote too."""
    await upsert_guild(store, Guild(id=OTHER_GUILD, name="Chess Club"))
    await upsert_channel(store, Channel(id=OTHER_CHANNEL, guild_id=OTHER_GUILD, name="general"))
    users = [User(id=OTHER_BOB, name="bob.chess", display_name="Bob"), User(id=BOB, name="bobtanaka", display_name="Bobby")]
    await upsert_users(store, users, guild_id=OTHER_GUILD)
    at = datetime(2024, 7, 1, 12, tzinfo=UTC)
    await record_messages(
        store,
        [
            Message(
                id=f"90000000000000001{i}",
                guild_id=OTHER_GUILD,
                channel_id=OTHER_CHANNEL,
                author_id=u.id,
                content="e4",
                created_at=at,
            )
            for i, u in enumerate(users)
        ],
    )


async def test_names_stand_for_ids_and_two_members_called_the_same_are_listed(store: GraphStore, tmp_path: Path) -> None:
    assert (await grapevine(store, tmp_path, "demo")).returncode == 0
    await _another_guild_with_a_bob(store)

    found = await grapevine(store, tmp_path, "members", "bob", "--json")
    rows = _rows(found.stdout)
    assert found.returncode == 0, found.stderr
    assert {(r["id"], r["guild_id"]) for r in rows} == {(BOB, GUILD), (BOB, OTHER_GUILD), (OTHER_BOB, OTHER_GUILD)}, rows
    sample = next(r for r in rows if r["guild_id"] == GUILD)
    assert sample["guild"] == "Tidewater Hiking Club" and sample["nickname"] == "Bob" and sample["last_seen"], sample

    in_sample = await grapevine(store, tmp_path, "facts", "--guild", "Tidewater Hiking Club", "--user", "Bob", "--json")
    assert in_sample.returncode == 0, in_sample.stderr
    assert "Bob has moved to Munich" in [r["text"] for r in _rows(in_sample.stdout)]

    # Everywhere, "Bob" is two members: forget refuses to guess, lists both with their ids, and forgets nobody
    ambiguous = await grapevine(store, tmp_path, "forget", "Bob", "--yes")
    assert ambiguous.returncode == 1, ambiguous.stdout + ambiguous.stderr
    said = " ".join(ambiguous.stderr.split())
    assert "2 members are called 'Bob'" in said and BOB in said and OTHER_BOB in said, said
    assert len(ambiguous.stderr.strip().splitlines()) == 1 and "Traceback" not in ambiguous.stderr
    assert not (tmp_path / "cli-data" / "unfinished_forgets.jsonl").exists()

    # a nickname counts only where it is carried: Bobby is Bob's name in the chess club, not in the hiking club
    nobody = await grapevine(store, tmp_path, "timeline", "--guild", GUILD, "--user", "Bobby")
    assert nobody.returncode == 1 and "no member is called 'Bobby'" in nobody.stderr, nobody.stderr
    by_channel = await grapevine(
        store, tmp_path, "context", "--guild", GUILD, "--channel", "#general", "--user", "alice.moreau", "--message", "hi"
    )
    assert by_channel.returncode == 0, by_channel.stderr


async def test_the_demo_after_the_quick_starts_forget_says_why_and_fresh_starts_it_over(
    store: GraphStore, tmp_path: Path
) -> None:
    assert (await grapevine(store, tmp_path, "demo")).returncode == 0
    await _another_guild_with_a_bob(store)
    first = _rows((await grapevine(store, tmp_path, "facts", "--guild", GUILD, "--user", BOB, "--history", "--json")).stdout)
    forgotten = await grapevine(store, tmp_path, "forget", BOB, "--yes")
    assert forgotten.returncode == 0, forgotten.stdout + forgotten.stderr

    again = await grapevine(store, tmp_path, "demo")
    said = " ".join(again.stdout.split())
    assert again.returncode == 0, again.stderr
    assert "messages of members who opted out or were forgotten were left out" in said, said
    assert "grapevine demo --fresh" in said, said

    fresh = await grapevine(store, tmp_path, "demo", "--fresh")
    assert fresh.returncode == 0, fresh.stdout + fresh.stderr
    assert "left out" not in fresh.stdout, fresh.stdout
    after = _rows((await grapevine(store, tmp_path, "facts", "--guild", GUILD, "--user", BOB, "--history", "--json")).stdout)
    assert sorted(r["text"] for r in after) == sorted(r["text"] for r in first), (first, after)
    consent = Consent(store)
    await consent.load()
    assert consent.allowed(BOB), "the sample's Bob may be stored again"
    # the other guild kept what it held: its own Bob, his membership and his message (the forget, everywhere, had
    # taken the sample's Bob out of it; the sample's start-over does not put him back there)
    members = _rows((await grapevine(store, tmp_path, "members", "Bob", "--guild", "Chess Club", "--json")).stdout)
    assert [(r["id"], r["guild_id"]) for r in members] == [(OTHER_BOB, OTHER_GUILD)], members
    assert members[0]["last_seen"], members


async def test_a_timeline_names_its_member_and_one_fact_is_one_fact(store: GraphStore, tmp_path: Path) -> None:
    assert (await grapevine(store, tmp_path, "demo")).returncode == 0
    line = await grapevine(store, tmp_path, "timeline", "--guild", GUILD, "--user", BOB)
    assert line.returncode == 0 and f"timeline of Bob ({BOB}):" in " ".join(line.stdout.split()), line.stdout
    one = await grapevine(store, tmp_path, "facts", "--guild", GUILD, "--entity", "Miso")
    said = " ".join(one.stdout.split())
    assert one.returncode == 0 and "1 fact " in said and "1 facts" not in said, said
