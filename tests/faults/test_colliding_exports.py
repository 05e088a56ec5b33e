"""An export whose message ids exist in another guild reported "120 messages" and
stored none of its content; its episodes held the other guild's messages, and forgetting one of its
authors deleted real messages of a member of the other guild. A newer export of the same channel never
updated an edited message. Here on the real engine, through the importer."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from common.settings import ExtractionSettings, WindowSettings
from graph.privacy.forget import forget_user
from graph.privacy.guards.consent import Consent, opt_out
from graph.reads import context as context_reads
from graph.reads.backlog import episode_messages
from graph.reads.context import FactRequest
from graph.reads.facts import members_by_name, users_by_id
from graph.store import GraphStore
from graph.writes.episodes import write_episode
from ingest.history_import import import_export
from ingest.ingestor import Ingestor
from tests.support.scripted import cypher

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)


def _export(guild: str, channel: str, authors: list[tuple[str, str]], texts: list[str], ids: list[str]) -> dict[str, Any]:
    messages = [
        {"id": mid, "type": "Default", "timestamp": (T0 + timedelta(minutes=i)).isoformat(), "timestampEdited": None,
         "content": text, "author": {"id": authors[i % len(authors)][0], "name": authors[i % len(authors)][1]}}
        for i, (mid, text) in enumerate(zip(ids, texts, strict=True))
    ]  # fmt: skip
    return {
        "guild": {"id": guild, "name": f"guild {guild[-1]}"},
        "channel": {"id": channel, "name": "general"},
        "messages": messages,
    }


async def _import(store: GraphStore, tmp: Path, name: str, doc: dict[str, Any]) -> Any:
    path = tmp / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    consent = Consent(store)
    await consent.load()
    ingestor = Ingestor(store, None, ExtractionSettings(), WindowSettings())
    return await import_export(path, store, ingestor, consent, WindowSettings())


async def _contents(store: GraphStore, guild: str) -> list[str]:
    rows = await cypher(store, "MATCH (m:Message) WHERE m.guild_id = $g RETURN m.content AS c ORDER BY m.created_at", g=guild)
    return [r["c"] for r in rows]


async def test_colliding_ids_from_another_guild_are_refused_and_never_mixed(store: GraphStore, tmp_path: Path) -> None:
    ids = [f"90000000000000{i:04d}" for i in range(6)]
    a = _export("800000000000000001", "810000000000000001", [("330000000000000001", "alice")],
                [f"alice says {i}" for i in range(6)], ids)  # fmt: skip
    b = _export("800000000000000002", "810000000000000002", [("330000000000000002", "mallory")],
                [f"mallory says {i}" for i in range(6)], ids)  # fmt: skip
    await _import(store, tmp_path, "a.json", a)
    result = await _import(store, tmp_path, "b.json", b)

    assert result.messages == 0 and len(result.skipped) == 6
    assert "another guild, channel or author" in result.skipped[0].reason and result.skipped[0].message_id == ids[0]
    assert await _contents(store, "800000000000000001") == [f"alice says {i}" for i in range(6)]
    rows = await cypher(store, "MATCH (e:Episode)<-[:IN_EPISODE]-(m:Message) RETURN e.guild_id AS g, m.guild_id AS mg")
    assert all(r["g"] == r["mg"] for r in rows), "an episode never holds another guild's message"
    sent = await cypher(store, "MATCH (u:User {id: '330000000000000002'})-[:SENT]->(m:Message) RETURN count(m) AS n")
    assert sent[0]["n"] == 0

    await forget_user(store, "330000000000000002")
    assert await _contents(store, "800000000000000001") == [f"alice says {i}" for i in range(6)], "Alice keeps hers"


async def test_a_newer_export_of_the_same_channel_applies_edits(store: GraphStore, tmp_path: Path) -> None:
    ids = [f"90000000000001{i:04d}" for i in range(3)]
    first = _export("800000000000000003", "810000000000000003", [("330000000000000003", "carol")],
                    ["I live in Madrid", "it is sunny", "bye"], ids)  # fmt: skip
    await _import(store, tmp_path, "first.json", first)
    newer = copy.deepcopy(first)
    newer["messages"][0]["content"] = "I live in Lisbon"
    newer["messages"][0]["timestampEdited"] = (T0 + timedelta(days=1)).isoformat()
    result = await _import(store, tmp_path, "newer.json", newer)
    assert result.skipped == []
    assert await _contents(store, "800000000000000003") == ["I live in Lisbon", "it is sunny", "bye"]
    older = copy.deepcopy(first)  # an older export again does not undo the edit
    await _import(store, tmp_path, "older.json", older)
    assert await _contents(store, "800000000000000003") == ["I live in Lisbon", "it is sunny", "bye"]


async def test_reimporting_after_a_forget_makes_no_new_window(store: GraphStore, tmp_path: Path) -> None:
    """Window keys came from their first and last message ids, so after one member's
    messages were forgotten a re-import made every window of theirs new (44 new overlapping episodes and
    44 redundant LLM calls on a real export)."""
    people = [("330000000000000011", "dave"), ("330000000000000012", "erin")]
    texts = [f"message {i} about the weekend" for i in range(12)]
    ids = [f"90000000000002{i:04d}" for i in range(12)]
    doc = _export("800000000000000004", "810000000000000004", people, texts, ids)
    for i, m in enumerate(doc["messages"]):  # three conversations, an hour apart
        m["timestamp"] = (T0 + timedelta(hours=i // 4, minutes=i % 4)).isoformat()
    first = await _import(store, tmp_path, "talk.json", doc)
    assert first.windows == 3
    await forget_user(store, "330000000000000011")  # dave wrote the first message of every window
    await opt_out(store, "330000000000000011")
    # forget-me re-keys the episodes whose keys carried dave's message ids: those keys are the stored ones
    before = await cypher(store, "MATCH (e:Episode) RETURN e.key AS key ORDER BY key")
    assert len(before) == 3 and not any("900000000000020000" in str(r["key"]) for r in before)
    again = await _import(store, tmp_path, "talk.json", doc)
    assert again.opted_out == 6 and again.messages == 6
    after = await cypher(store, "MATCH (e:Episode) RETURN e.key AS key ORDER BY key")
    assert after == before, "the windows are the ones already stored, not new ones"


async def test_a_nickname_stays_in_its_guild(store: GraphStore, tmp_path: Path) -> None:
    """User nodes are global and every import set `display_name` from the per-guild
    nickname, so guild A's facts and reply context showed the name a member uses only in guild B."""
    from graph.models import EpisodeWrite, FactWrite, NodeRef, Report

    member = "330000000000000021"
    a = _export("800000000000000005", "810000000000000005", [(member, "sam")], ["hello from A"], ["900000000000030001"])
    b = _export("800000000000000006", "810000000000000006", [(member, "sam")], ["hello from B"], ["900000000000030002"])
    a["messages"][0]["author"]["nickname"] = "Sammy"
    b["messages"][0]["author"]["nickname"] = "NightOwl"
    await _import(store, tmp_path, "a.json", a)
    await _import(store, tmp_path, "b.json", b)
    [episode] = await cypher(store, "MATCH (e:Episode) WHERE e.guild_id = '800000000000000005' RETURN e.key AS key")
    fact = FactWrite(uuid="f-sam", text="Sam likes tea", about=(NodeRef(kind="user", id=member),),
                     reports=(Report(user_id=member, message_id="900000000000030001", at=T0),), valid_at=T0,
                     source_message_ids=("900000000000030001",))  # fmt: skip
    await write_episode(store, EpisodeWrite(key=episode["key"], guild_id="800000000000000005", facts=(fact,)))

    found = await context_reads.reply_facts(store, FactRequest("800000000000000005", author_id=member, mentioned_ids=[], names=[],
                                            entity_keys=[], text="", skip_ids=[], now=T0 + timedelta(days=1)))  # fmt: skip
    [tea] = found["author"]
    assert list(tea.about) == ["Sammy"] and [r[1] for r in tea.reporters] == ["Sammy"]
    [(message, author)] = await episode_messages(store, episode["key"])
    assert author.display_name == "Sammy"
    assert [u.display_name for u in await users_by_id(store, [member], "800000000000000006")] == ["NightOwl"]
    assert [u.display_name for u in await members_by_name(store, "800000000000000006", ["nightowl"])] == ["NightOwl"]
    assert await members_by_name(store, "800000000000000005", ["nightowl"]) == [], "B's nickname finds nobody in A"


async def test_forget_finds_a_member_by_the_nickname_of_every_guild(store: GraphStore, tmp_path: Path) -> None:
    member, other = "330000000000000031", "330000000000000032"
    a = _export("800000000000000007", "810000000000000007", [(member, "kim"), (other, "lee")],
                ["hi all", "ask NightOwl about the trip"], ["900000000000040001", "900000000000040002"])  # fmt: skip
    b = _export("800000000000000008", "810000000000000008", [(member, "kim")], ["evening"], ["900000000000040003"])
    b["messages"][0]["author"]["nickname"] = "NightOwl"
    await _import(store, tmp_path, "a.json", a)
    await _import(store, tmp_path, "b.json", b)
    report = await forget_user(store, member)
    assert report.residue == []
    assert await _contents(store, "800000000000000007") == ["ask [forgotten] about the trip"]
