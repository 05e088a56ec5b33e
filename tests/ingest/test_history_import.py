"""No way back in: an import stores nothing of a member who opted out or was forgotten, whenever that happened
(before the import, while it parsed the file, while it extracted), and an import that loses a race with a forget
finishes the rest and says what happened. Through the importer, on the real engine."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from common.settings import ExtractionSettings, WindowSettings
from graph.privacy.forget import forget_user
from graph.privacy.guards.consent import Consent, opt_out
from graph.store import GraphStore
from graph.writes.messages import record_batch
from ingest.history_import import ImportResult, import_export
from ingest.ingestor import Ingestor
from llm.client import OpenAILLM
from llm.meter import UsageMeter
from tests.support.prompt_reader import Prompt
from tests.support.scripted import answer, batch_aware, cypher, fact, llm_settings
from tests.support.scripted_llm import ScriptedLLMServer

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)
GUILD, CHANNEL = "800000000000000044", "810000000000000044"
ZORRO, BEA, BOT = "330000000000000044", "330000000000000045", "330000000000000099"


def _message(n: int, author: tuple[str, str], text: str, *, at: timedelta, bot: bool = False) -> dict[str, Any]:
    return {"id": f"9440000000000{n:05d}", "type": "Default", "timestamp": (T0 + at).isoformat(), "timestampEdited": None,
            "content": text, "author": {"id": author[0], "name": author[1], "isBot": bot}}  # fmt: skip


def _guild_export(tmp: Path) -> Path:
    """Three conversations an hour apart: one Zorro opens and Bea answers, naming him; one of Zorro's alone; one of
    Bea's alone."""
    zorro, bea = (ZORRO, "Zorro"), (BEA, "bea")
    talk = [
        (zorro, "the kernel builds again"), (bea, "nice one Zorro"), (zorro, "thanks"), (bea, "Zorro rocks"),
        (zorro, "testing the new scheduler"), (zorro, "it is fast"),
        (bea, "anyone up for lunch"), (bea, "the usual place"),
    ]  # fmt: skip
    hours = [0, 0, 0, 0, 1, 1, 2, 2]
    messages = [_message(n, who, text, at=timedelta(hours=hours[n], minutes=n)) for n, (who, text) in enumerate(talk)]
    doc = {"guild": {"id": GUILD, "name": "g"}, "channel": {"id": CHANNEL, "name": "general"}, "messages": messages}
    path = tmp / "guild.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _dm_export(tmp: Path) -> Path:
    """Zorro's DMs with the bot: his questions and the bot's answers."""
    zorro, bot = (ZORRO, "Zorro"), (BOT, "grapevine")
    messages = [
        _message(100 + n, bot if n % 2 else zorro, text, at=timedelta(hours=n), bot=bool(n % 2))
        for n, text in enumerate(["what do you know about me", "you like the kernel", "forget that", "done"])
    ]
    doc = {"guild": {"id": "0", "name": "Direct Messages"},
           "channel": {"id": "810000000000000999", "type": "DirectTextChat", "name": "Zorro"}, "messages": messages}  # fmt: skip
    path = tmp / "dm.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


async def _import(store: GraphStore, path: Path, llm: OpenAILLM | None = None) -> ImportResult:
    consent = Consent(store)
    await consent.load()
    ingestor = Ingestor(store, llm, ExtractionSettings(), WindowSettings(), hidden=lambda uid: not consent.allowed(uid))
    return await import_export(path, store, ingestor, consent, WindowSettings())


async def _forget(store: GraphStore, user_id: str) -> None:
    """As `grapevine forget` does: the opt-out first, then the forget."""
    await opt_out(store, user_id)
    report = await forget_user(store, user_id)
    assert report.clean, report.residue


async def _held(store: GraphStore, guild: str) -> dict[str, int]:
    rows = await cypher(
        store,
        "MATCH (n) WHERE n.guild_id = $g OR n.id = $g RETURN labels(n)[0] AS label, count(*) AS n",
        g=guild,
    )
    return {r["label"]: r["n"] for r in rows}


async def _texts(store: GraphStore) -> list[str]:
    rows = await cypher(store, "MATCH (m:Message) RETURN m.content AS c ORDER BY m.id")
    return [r["c"] for r in rows]


async def test_a_dm_export_imported_again_after_its_owner_was_forgotten_stores_nothing(store: GraphStore, tmp_path: Path) -> None:
    dm = _dm_export(tmp_path)
    first = await _import(store, dm)
    assert first.messages == 4 and (await _held(store, f"dm:{ZORRO}")).get("Message") == 4
    await _forget(store, ZORRO)
    assert await _held(store, f"dm:{ZORRO}") == {}

    again = await _import(store, dm)
    assert await _held(store, f"dm:{ZORRO}") == {}, "the DM space came back: its guild, channel, the bot's messages"
    assert again.dm_owner_opted_out and again.messages == 0 and again.opted_out == 4


async def test_an_import_after_a_forget_stores_others_words_with_the_forgotten_name_rewritten(
    store: GraphStore, tmp_path: Path
) -> None:
    await _forget(store, ZORRO)  # forgotten before the file was ever imported
    result = await _import(store, _guild_export(tmp_path))
    texts = await _texts(store)
    assert texts == ["nice one [forgotten]", "[forgotten] rocks", "anyone up for lunch", "the usual place"]
    assert result.opted_out == 4 and result.names_hidden == 2


async def test_a_forget_during_the_parse_holds_when_the_import_writes(store: GraphStore, tmp_path: Path) -> None:
    """The forget lands after the import read the opt-outs (`grapevine import` reads them when it starts) and
    before it writes (while it parses the file): at write time the importer reads them again."""
    consent = Consent(store)
    await consent.load()  # the import starts: Zorro is not opted out yet
    await _forget(store, ZORRO)  # a forget in another process, while the file is parsed
    ingestor = Ingestor(store, None, ExtractionSettings(), WindowSettings(), hidden=lambda uid: not consent.allowed(uid))
    result = await import_export(_guild_export(tmp_path), store, ingestor, consent, WindowSettings())

    texts = await _texts(store)
    assert texts == ["nice one [forgotten]", "[forgotten] rocks", "anyone up for lunch", "the usual place"]
    users = await cypher(store, "MATCH (u:User {id: $id}) RETURN count(u) AS n", id=ZORRO)
    assert users[0]["n"] == 0
    assert result.opted_out == 4 and result.messages == 4


def _summaries(request: dict[str, Any]) -> dict[str, Any]:
    prompt = Prompt(request)
    first = next(iter(prompt.messages.values()))
    return answer("They talked.", facts=[fact(f"Someone said {first.content}", about=[first.author_ref], source=[first.ref])])


async def test_a_forget_during_extraction_leaves_the_rest_extracted_and_says_so(
    store: GraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The forget lands after the importer read its queue of windows and before their batch went: the windows the
    forget removed or re-keyed are not there to extract; the others are extracted, and the counts say so."""
    with ScriptedLLMServer() as srv:
        srv.responder = batch_aware(_summaries)
        llm = OpenAILLM(llm_settings(srv.base_url), UsageMeter(), min_wait=0.001, max_wait=0.01)
        consent = Consent(store)
        await consent.load()
        ingestor = Ingestor(store, llm, ExtractionSettings(), WindowSettings(), hidden=lambda uid: not consent.allowed(uid))
        batch = ingestor.extract_batch
        raced: list[list[str]] = []

        async def forget_first(keys: list[str]) -> Any:
            if not raced:
                raced.append(keys)
                await _forget(store, ZORRO)
            return await batch(keys)

        monkeypatch.setattr(ingestor, "extract_batch", forget_first)
        result = await import_export(_guild_export(tmp_path), store, ingestor, consent, WindowSettings())
        await llm.aclose()

    assert raced and len(raced[0]) == 3, raced  # the three windows were queued before the forget
    pending = await cypher(store, "MATCH (e:Episode) WHERE e.status <> 'done' RETURN e.key AS k, e.status AS s")
    assert pending == [], "every window left after the forget is extracted"
    assert result.parked == 0 and result.pending == 0 and result.failed == 0, result
    assert result.vanished == 1 and result.statuses == {"done": 2, "forgotten meanwhile": 1}, result.statuses


class _Counted:
    """An import's progress, by step: the total it announced and how far it got."""

    def __init__(self) -> None:
        self.totals: dict[str, int | None] = {}
        self.done: dict[str, int] = {}

    def start(self, step: str, total: int | None = None) -> None:
        self.totals[step], self.done[step] = total, 0

    def advance(self, step: str, n: int = 1) -> None:
        self.done[step] += n


async def test_an_import_stores_what_the_bot_stores_and_says_what_it_left_out(store: GraphStore, tmp_path: Path) -> None:
    """A message with text keeps its attachment's and sticker's names (as the bot stores it); a system message is
    left out as the bot leaves it out, and the summary and the progress count it."""
    zorro = (ZORRO, "Zorro")
    shot = _message(1, zorro, "look at this", at=timedelta(minutes=1))
    shot["attachments"] = [{"id": "950000000000000001", "url": "https://cdn/x", "fileName": "shot.png", "fileSizeBytes": 3}]
    shot["stickers"] = [{"id": "960000000000000001", "name": "Wave", "format": "Png", "sourceUrl": "https://cdn/s"}]
    call = _message(2, zorro, "", at=timedelta(minutes=2)) | {"type": "Call"}
    joined = _message(3, (BEA, "bea"), "", at=timedelta(minutes=3)) | {"type": "GuildMemberJoin"}
    nice = _message(4, (BEA, "bea"), "nice", at=timedelta(minutes=4))
    doc = {"guild": {"id": GUILD, "name": "g"}, "channel": {"id": CHANNEL, "name": "general"},
           "messages": [shot, call, joined, nice]}  # fmt: skip
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    consent = Consent(store)
    await consent.load()
    ingestor = Ingestor(store, None, ExtractionSettings(), WindowSettings(), hidden=lambda uid: not consent.allowed(uid))
    progress = _Counted()
    result = await import_export(path, store, ingestor, consent, WindowSettings(), progress=progress)
    assert await _texts(store) == ["look at this\n[attachment: shot.png]\n[sticker: Wave]", "nice"]
    assert result.messages == 2
    assert result.left_out() == {"system message (Call)": 1, "system message (GuildMemberJoin)": 1}
    assert progress.totals["messages"] == progress.done["messages"] == 4


async def test_a_file_whose_every_message_is_refused_stores_no_channel(store: GraphStore, tmp_path: Path) -> None:
    broken = [{"id": f"94400000000001000{n}", "type": "Default", "content": "no author, no time"} for n in range(2)]
    call = _message(3, (ZORRO, "Zorro"), "", at=timedelta(0)) | {"type": "Call"}
    doc = {"guild": {"id": GUILD, "name": "g"}, "channel": {"id": CHANNEL, "name": "general"}, "messages": [*broken, call]}
    path = tmp_path / "refused.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    result = await _import(store, path)
    assert await _held(store, GUILD) == {}
    assert await _held(store, CHANNEL) == {}
    assert result.messages == 0 and len(result.skipped) == 2
    assert result.left_out() == {"malformed": 2, "system message (Call)": 1}


async def test_a_file_whose_every_message_the_write_refuses_stores_no_place(store: GraphStore, tmp_path: Path) -> None:
    """Every message refused in the write itself, not before it: their ids are stored for another channel (a file
    whose channel id was edited); nothing of the file's channel is stored."""
    await _import(store, _guild_export(tmp_path))
    moved = json.loads(_guild_export(tmp_path).read_text(encoding="utf-8"))
    moved["channel"] = {"id": "810000000000000045", "name": "copy"}
    path = tmp_path / "copy.json"
    path.write_text(json.dumps(moved), encoding="utf-8")
    result = await _import(store, path)
    assert result.messages == 0 and len(result.skipped) == 8, result
    assert await _held(store, "810000000000000045") == {}
    channels = await cypher(store, "MATCH (c:Channel) RETURN c.id AS id")
    assert channels == [{"id": CHANNEL}]


async def test_an_opt_out_landing_just_before_the_write_stores_no_place(
    store: GraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every author opts out after the import's last read of the opt-outs and before its write: the write's own
    guard refuses every message, and the file's guild, channel and authors are not stored either."""
    zorro = (ZORRO, "Zorro")
    doc = {"guild": {"id": GUILD, "name": "g"}, "channel": {"id": CHANNEL, "name": "general"},
           "messages": [_message(n, zorro, f"note {n}", at=timedelta(minutes=n)) for n in range(3)]}  # fmt: skip
    path = tmp_path / "zorro.json"
    path.write_text(json.dumps(doc), encoding="utf-8")

    async def opted_out_first(*args: Any, **kwargs: Any) -> Any:
        await opt_out(store, ZORRO)  # another process's opt-out, landing now
        return await record_batch(*args, **kwargs)

    monkeypatch.setattr("ingest.history_import.record_batch", opted_out_first)
    result = await _import(store, path)
    assert result.messages == 0, result
    assert await _held(store, GUILD) == {} and await _held(store, CHANNEL) == {}
    assert await cypher(store, "MATCH (n) WHERE n:Guild OR n:Channel OR n:User OR n:Message RETURN n.id AS id") == []
