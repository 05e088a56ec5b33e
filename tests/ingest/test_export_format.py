"""Reading DiscordChatExporter JSON exports (ingest/export_format.py)."""

from __future__ import annotations

import copy
import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from graph.models import ChannelKind
from ingest.export_format import ExportFormatError, ParsedExport, parse_export
from tests.support.dce_builder import BOT_NICK, export_from_irc, user_id

SAMPLE = Path("/work/shared/data/irc/dev/2004-11-15_03.raw.txt")
SYSTEM = {"GuildMemberJoin", "ChannelPinnedMessage", "RecipientAdd", "ThreadCreated"}

pytestmark = pytest.mark.skipif(not SAMPLE.is_file(), reason=f"shared IRC sample {SAMPLE} absent")


@pytest.fixture(scope="module")
def export_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dce") / "ubuntu.json"
    export_from_irc(SAMPLE, out, channel_id="710000000000004242")
    return out


@pytest.fixture(scope="module")
def document(export_path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(export_path.read_text(encoding="utf-8"))
    return loaded


@pytest.fixture(scope="module")
def parsed(export_path: Path) -> ParsedExport:
    return parse_export(export_path)


def write(tmp_path: Path, doc: dict[str, Any], name: str = "export.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc, ensure_ascii=False, indent=2), encoding="utf-8")
    return path


def test_header_maps_to_guild_and_text_channel(parsed: ParsedExport) -> None:
    assert parsed.guild.id == "700000000000000042"
    assert parsed.channel.id == "710000000000004242" and parsed.channel.guild_id == "700000000000000042"
    assert parsed.channel.kind is ChannelKind.TEXT and parsed.channel.parent_id is None
    assert parsed.channel.name == "ubuntu"


def test_every_irc_line_becomes_one_message(parsed: ParsedExport, document: dict[str, Any]) -> None:
    raw = SAMPLE.read_text(encoding="utf-8").split("\n")
    spoken = [i for i, line in enumerate(raw) if re.match(r"^\[\d\d:\d\d\] (<|\s+\* )", line)]
    humans = [m for m in parsed.messages if m.author_id != user_id(BOT_NICK)]
    assert [int(m.id) & 0x3FFFFF for m in humans] == spoken  # the low bits carry the raw line
    assert len(parsed.messages) == len(spoken) + 2  # and the Discord bot's two messages
    assert parsed.skipped == []
    system = [m for m in document["messages"] if m["type"] in SYSTEM]
    assert parsed.system_messages == len(system) > 0
    times = [m.created_at for m in parsed.messages]
    assert times == sorted(times) and all(t.tzinfo is UTC for t in times)
    assert times[0].date().isoformat() == "2004-11-14"  # the log starts the day before line 1000
    assert all(m.guild_id == "700000000000000042" and m.channel_id == "710000000000004242" for m in parsed.messages)


def test_authors_by_id_survive_renames(parsed: ParsedExport, document: dict[str, Any]) -> None:
    spoken = [m for m in document["messages"] if m["type"] not in SYSTEM]
    last_seen = {m["author"]["id"]: m["author"] for m in spoken}
    for uid, author in last_seen.items():
        user = parsed.users[uid]
        assert (user.name, user.display_name, user.is_bot) == (author["name"], author["nickname"], author["isBot"])
    by_id = {m.id: m for m in parsed.messages}
    renamed = [m for m in document["messages"] if m["author"]["nickname"] == "ubuntor"]
    assert renamed, "the sample renames usual to ubuntor"
    assert {by_id[m["id"]].author_id for m in renamed} == {user_id("usual")}
    mentioned = {u["id"] for m in document["messages"] for u in m["mentions"]}
    assert mentioned and mentioned <= parsed.users.keys()


def test_reply_links_follow_the_annotations(parsed: ParsedExport) -> None:
    by_line = {int(m.id) & 0x3FFFFF: m for m in parsed.messages}
    annotation = SAMPLE.with_name(SAMPLE.name.replace(".raw.", ".annotation."))
    links: dict[int, int] = {}
    for row in annotation.read_text(encoding="utf-8").splitlines():
        a, b = map(int, row.split()[:2])
        if a < b and a in by_line and b in by_line:
            links[b] = max(links.get(b, a), a)
    assert len(links) > 50
    for b, a in links.items():
        assert by_line[b].reply_to_id == by_line[a].id
    ids = {m.id for m in parsed.messages}
    replies = [m for m in parsed.messages if m.reply_to_id]
    assert all(m.reply_to_id in ids for m in replies)


def test_edits_and_bot(parsed: ParsedExport, document: dict[str, Any]) -> None:
    edited = {m["id"] for m in document["messages"] if m["timestampEdited"]}
    assert len(edited) >= 3
    assert {m.id for m in parsed.messages if m.edited_at} == edited
    assert all(m.edited_at > m.created_at for m in parsed.messages if m.edited_at)
    bot = parsed.users[user_id(BOT_NICK)]
    assert bot.is_bot and bot.display_name == BOT_NICK
    assert sum(m.author_id == bot.id for m in parsed.messages) == 2
    assert not parsed.users[user_id("usual")].is_bot


def test_truncated_file_names_line_and_column(export_path: Path, tmp_path: Path) -> None:
    text = export_path.read_text(encoding="utf-8")
    cut = tmp_path / "cut.json"
    cut.write_text(text[: len(text) // 2], encoding="utf-8")
    with pytest.raises(ExportFormatError) as caught:
        parse_export(cut)
    err = caught.value
    assert err.line is not None and err.line > 100 and err.column is not None
    assert "cut.json" in str(err) and f"line {err.line}, column {err.column}" in str(err)


def test_not_an_export(tmp_path: Path) -> None:
    with pytest.raises(ExportFormatError, match="guild, channel"):
        parse_export(write(tmp_path, {"messages": []}))
    with pytest.raises(ExportFormatError, match="bad header"):
        parse_export(write(tmp_path, {"guild": {}, "channel": {"id": "1"}, "messages": []}))


def test_malformed_messages_are_skipped_with_their_index(document: dict[str, Any], tmp_path: Path) -> None:
    doc = copy.deepcopy(document)
    spoken = [i for i, m in enumerate(doc["messages"]) if m["type"] not in SYSTEM]
    no_author, bad_time, not_object = spoken[5], spoken[9], spoken[12]
    del doc["messages"][no_author]["author"]
    doc["messages"][bad_time]["timestamp"] = "last tuesday"
    bad_time_id = doc["messages"][bad_time]["id"]
    doc["messages"][not_object] = "oops"
    result = parse_export(write(tmp_path, doc))
    assert [s.index for s in result.skipped] == [no_author, bad_time, not_object]
    assert "author" in result.skipped[0].reason
    assert result.skipped[1].message_id == bad_time_id and "timestamp" in result.skipped[1].reason
    assert result.skipped[2].message_id is None
    assert len(result.messages) == len(spoken) - 3


def test_unicode_empty_attachments_forwards_and_offsets(document: dict[str, Any], tmp_path: Path) -> None:
    doc = copy.deepcopy(document)
    base = next(m for m in doc["messages"] if m["type"] == "Default")
    texts = ["Ünïcödé 🍇 👩‍👩‍👧 日本語 עברית e\u0301 \U0001d11e", '\\n"quoted"\t\u2028', ""]
    doc["messages"] = []
    for n, text in enumerate(texts + ["", "fwd"]):
        doc["messages"].append(base | {"id": f"9000000000000000{n}", "content": text})
    doc["messages"][3]["attachments"] = [{"id": "7", "url": "u", "fileName": "résumé.pdf"}]
    doc["messages"][4]["reference"] = {"type": "Forward", "messageId": "100000000000000001", "channelId": "2"}
    doc["messages"][4]["timestamp"] = "2024-03-01T12:00:00.123+02:00"
    result = parse_export(write(tmp_path, doc))
    assert [m.content for m in result.messages] == texts + ["[attachment: résumé.pdf]", "fwd"]
    assert result.messages[4].reply_to_id is None
    assert result.messages[4].created_at == datetime(2024, 3, 1, 10, 0, 0, 123000, UTC)


@pytest.mark.parametrize(
    ("export_type", "guild", "kind", "guild_id", "parent"),
    [
        ("GuildPublicThread", "550000000000000055", ChannelKind.THREAD, "550000000000000055", "777"),
        ("GuildNewsThread", "550000000000000055", ChannelKind.THREAD, "550000000000000055", "777"),
        ("GuildVoiceChat", "550000000000000055", ChannelKind.VOICE, "550000000000000055", None),
    ],
)
def test_channel_kinds(
    document: dict[str, Any],
    tmp_path: Path,
    export_type: str,
    guild: str,
    kind: ChannelKind,
    guild_id: str,
    parent: str | None,
) -> None:
    doc = {**document, "messages": document["messages"][:20]}
    doc["guild"] = {"id": guild, "name": "Direct Messages" if guild == "0" else "G", "iconUrl": ""}
    doc["channel"] = {**document["channel"], "type": export_type, "categoryId": "777"}
    result = parse_export(write(tmp_path, doc))
    assert result.channel.kind is kind and result.channel.parent_id == parent
    assert result.guild.id == result.channel.guild_id == guild_id
    assert all(m.guild_id == guild_id for m in result.messages)


def _dm(document: dict[str, Any], export_type: str, authors: list[dict[str, Any]]) -> dict[str, Any]:
    said = [m for m in document["messages"] if m["type"] == "Default"][: 2 * len(authors)]
    messages = [m | {"author": authors[i % len(authors)], "mentions": [], "reference": None} for i, m in enumerate(said)]
    return {
        **document,
        "guild": {"id": "0", "name": "Direct Messages", "iconUrl": ""},
        "channel": {**document["channel"], "type": export_type},
        "messages": messages,
    }


@pytest.mark.parametrize("export_type", ["DirectTextChat", "DirectGroupTextChat"])
def test_a_dm_export_is_its_member_s_dm_space(document: dict[str, Any], tmp_path: Path, export_type: str) -> None:
    """The bot's DMs with a member are that member's DM space (`dm:<their id>`), which their forget-me reaches,
    not a space of the channel's id."""
    member = {"id": "410000000000000041", "name": "zoe", "nickname": "Zoe", "isBot": False}
    bot = {"id": "490000000000000049", "name": "grapevine", "nickname": None, "isBot": True}
    result = parse_export(write(tmp_path, _dm(document, export_type, [member, bot])))
    assert result.channel.kind is ChannelKind.DM
    assert result.guild.id == result.channel.guild_id == "dm:410000000000000041"
    assert {m.guild_id for m in result.messages} == {"dm:410000000000000041"}


def test_a_dm_between_people_is_refused(document: dict[str, Any], tmp_path: Path) -> None:
    people = [
        {"id": "410000000000000041", "name": "zoe", "nickname": None, "isBot": False},
        {"id": "420000000000000042", "name": "yan", "nickname": None, "isBot": False},
    ]
    with pytest.raises(ExportFormatError, match="one member's DMs with the bot.*2 people"):
        parse_export(write(tmp_path, _dm(document, "DirectGroupTextChat", people)))


def test_deleted_users_sharing_discord_s_one_id_are_not_one_member(document: dict[str, Any], tmp_path: Path) -> None:
    """Discord shows every deleted account as "Deleted User" under one id: each of its messages is its own author."""
    doc = copy.deepcopy(document)
    ghost = {"id": "456226577798135808", "name": "Deleted User", "discriminator": "0000", "nickname": None, "isBot": False}
    said = [m for m in doc["messages"] if m["type"] in ("Default", "Reply")]
    for m in said[:5]:
        m["author"] = ghost
    result = parse_export(write(tmp_path, doc))
    authors = [m.author_id for m in result.messages if m.id in {x["id"] for x in said[:5]}]
    assert len(set(authors)) == 5 and all(a.startswith("deleted:") for a in authors)
    assert "456226577798135808" not in result.users
    assert all(result.users[a].display_name == "Deleted User" for a in authors)


def test_ids_are_ascii_digits_only(document: dict[str, Any], tmp_path: Path) -> None:
    """Full-width digits are digits to Unicode and to `int()`, but no Discord id: an export holding one is refused
    where it is, as any other malformed id."""
    full_width = "".join(chr(ord(c) + 0xFEE0) for c in "710000000000004242")
    doc = copy.deepcopy(document)
    doc["channel"]["id"] = full_width
    with pytest.raises(ExportFormatError, match="bad header"):
        parse_export(write(tmp_path, doc))
    doc = copy.deepcopy(document)
    doc["guild"]["id"] = full_width
    with pytest.raises(ExportFormatError, match="bad header"):
        parse_export(write(tmp_path, doc))
