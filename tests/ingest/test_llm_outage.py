"""An LLM that cannot be reached parks what waits for it; it never fails a window (there was no answer to find bad),
and a pass's counts add up to the windows there are, each counted once. Through the importer and the ingestor
(`grapevine ingest --pending`'s), on the real engine, with the real client against a closed port."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from common.settings import ExtractionSettings, WindowSettings
from graph.models import EpisodeStatus
from graph.privacy.guards.consent import Consent
from graph.reads.backlog import episodes_by_status
from graph.store import GraphStore
from ingest.history_import import import_export
from ingest.ingestor import BacklogResult, Ingestor
from llm.client import OpenAILLM
from llm.meter import UsageMeter
from tests.support.ports import free_port
from tests.support.scripted import llm_settings
from tests.support.scripted_llm import Fault, ScriptedLLMServer

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)
GUILDS = {"800000000000000081": ("810000000000000081", 3), "800000000000000082": ("810000000000000082", 1)}


def _export(tmp: Path, guild: str, channel: str, windows: int) -> Path:
    """`windows` conversations an hour apart, two messages each."""
    messages: list[dict[str, Any]] = [
        {"id": f"98{guild[-2:]}000000000{n:05d}", "type": "Default", "timestamp": (T0 + timedelta(hours=n // 2, minutes=n)).isoformat(),
         "timestampEdited": None, "content": f"line {n} about the kernel",
         "author": {"id": f"3300000000000{guild[-2:]}{n % 2:03d}", "name": f"m{n % 2}", "isBot": False}}
        for n in range(2 * windows)
    ]  # fmt: skip
    path = tmp / f"{guild}.json"
    doc = {"guild": {"id": guild, "name": "g"}, "channel": {"id": channel, "name": "general"}, "messages": messages}
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _counted(result: BacklogResult) -> int:
    return result.done + result.failed + result.skipped + result.pending + result.parked


async def test_an_unreachable_llm_parks_every_window_and_fails_none(store: GraphStore, tmp_path: Path) -> None:
    consent = Consent(store)
    await consent.load()
    offline = Ingestor(store, None, ExtractionSettings(), WindowSettings())
    for guild, (channel, windows) in GUILDS.items():
        stored = await import_export(_export(tmp_path, guild, channel, windows), store, offline, consent, WindowSettings())
        assert stored.windows == windows
    closed = OpenAILLM(llm_settings(f"http://127.0.0.1:{free_port()}"), UsageMeter(), min_wait=0.001, max_wait=0.01)
    ingestor = Ingestor(store, closed, ExtractionSettings(), WindowSettings())
    result = await ingestor.process_backlog()
    assert (result.done, result.failed, result.parked) == (0, 0, 4), result
    assert _counted(result) == 4  # each window once
    waiting = await episodes_by_status(store, [EpisodeStatus.PENDING, EpisodeStatus.FAILED], limit=100)
    assert [(e.status, e.attempts) for e in waiting] == [(EpisodeStatus.PENDING, 0)] * 4  # parked as they were
    again = await ingestor.process_backlog()  # the next run: the same windows, parked again, counted once
    await closed.aclose()
    assert (again.failed, again.parked, _counted(again)) == (0, 4, 4), again


async def _imported(store: GraphStore, tmp: Path) -> None:
    consent = Consent(store)
    await consent.load()
    offline = Ingestor(store, None, ExtractionSettings(), WindowSettings())
    for guild, (channel, _) in GUILDS.items():
        await import_export(_export(tmp, guild, channel, GUILDS[guild][1]), store, offline, consent, WindowSettings())


async def test_bad_answers_fail_and_500s_park_each_window_counted_once(store: GraphStore, tmp_path: Path) -> None:
    """Bad answers (a batch's, then each window's alone) fail the windows once each; then the endpoint answers only
    HTTP 500: the failed windows are parked as they are, not failed again, and the counts still add up."""
    await _imported(store, tmp_path)
    with ScriptedLLMServer() as srv:
        llm = OpenAILLM(llm_settings(srv.base_url), UsageMeter(), min_wait=0.001, max_wait=0.01)
        ingestor = Ingestor(store, llm, ExtractionSettings(), WindowSettings())
        srv.responder = lambda request: Fault.malformed('{"facts": "not a list"}')
        bad = await ingestor.process_backlog()
        assert (bad.failed, _counted(bad)) == (4, 4), bad
        srv.responder = lambda request: Fault.status(500)
        down = await ingestor.process_backlog(retry_failed=True)
        await llm.aclose()
    assert (down.failed, down.parked, _counted(down)) == (0, 4, 4), down
    failed = await episodes_by_status(store, [EpisodeStatus.FAILED], limit=100)
    assert [e.attempts for e in failed] == [1] * 4  # an outage is no attempt
