"""Importing a channel's history from a DiscordChatExporter JSON export.

Windows are formed from the timestamps exactly as the live bot forms them (`replay`), then
extracted, or left pending when no LLM is configured. With a `BatchingIngestor` the closed windows
queue as pending episodes and, once the file is read, the guild's queue is extracted in batches (as
`grapevine ingest --pending` does): a quiet server's windows share calls. Everything is idempotent on
Discord ids and window keys, so importing the same file twice adds nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from common.events import emit
from common.settings import WindowSettings
from graph.consent import Consent
from graph.models import EpisodeStatus
from graph.store import GraphStore
from ingest.batched import BatchingIngestor
from ingest.export_format import ParsedExport, SkippedMessage, parse_export
from ingest.replay import replay
from ingest.windows import WindowMessage

BATCH = 500


class ImportProgress(Protocol):
    """Where an import says how far it is, by step: "messages" recorded, "windows" closed, "extracted"."""

    def start(self, step: str, total: int | None = None) -> None: ...

    def advance(self, step: str, n: int = 1) -> None: ...


class _Silent:
    def start(self, step: str, total: int | None = None) -> None:
        pass

    def advance(self, step: str, n: int = 1) -> None:
        pass


@dataclass
class ImportResult:
    path: Path
    messages: int = 0
    windows: int = 0
    new_messages: int = 0  # of `messages`, those the graph did not hold yet (the rest were stored by an earlier import)
    new_windows: int = 0  # of `windows`, those closed now (the rest were episodes already)
    opted_out: int = 0
    skipped: list[SkippedMessage] = field(default_factory=list)
    statuses: dict[str, int] = field(default_factory=dict)  # each window's status once the import ends
    failed: int = 0  # of the windows this import extracted: failed, or
    parked: int = 0  # left pending because the LLM's circuit breaker opened


async def import_export(
    path: Path,
    store: GraphStore,
    ingestor: BatchingIngestor,
    consent: Consent,
    windows: WindowSettings,
    *,
    progress: ImportProgress | None = None,
) -> ImportResult:
    """Import one export file; a file that does not parse raises ExportFormatError before any write."""
    progress = progress or _Silent()
    parsed: ParsedExport = parse_export(path)
    result = ImportResult(path=path, skipped=list(parsed.skipped))
    allowed = [m for m in parsed.messages if consent.allowed(m.author_id)]
    result.opted_out = len(parsed.messages) - len(allowed)
    await store.upsert_guild(parsed.guild)
    await store.upsert_channel(parsed.channel)
    authors = {m.author_id for m in allowed}
    await store.upsert_users([u for uid, u in parsed.users.items() if uid in authors], parsed.guild.id)
    refused: set[str] = set()
    progress.start("messages", len(allowed))
    for start in range(0, len(allowed), BATCH):
        batch = allowed[start : start + BATCH]
        recorded = await store.record_batch(batch, {}, {})
        refused.update(recorded.refused)
        result.messages += len(batch)
        result.new_messages += recorded.created
        progress.advance("messages", len(batch))
    if refused:
        result.skipped += [
            SkippedMessage(parsed.positions[m.id], m.id, "its id is stored for a message of another guild, channel or author")
            for m in allowed
            if m.id in refused
        ]
        result.messages -= len(refused)
        allowed = [m for m in allowed if m.id not in refused]
    stream = (WindowMessage(m, parsed.users[m.author_id]) for m in sorted(allowed, key=lambda m: (m.created_at, m.id)))
    closed = list(replay(stream, windows))  # rules over messages in memory: cheap, and it gives the total
    batcher = ingestor if ingestor.llm is not None else None
    found: list[str] = []  # each window's status
    queued: dict[int, str] = {}  # position in `found` -> key, for windows waiting for the batches below
    held_pending: set[int] = set()  # of those, windows an import without an LLM left pending
    progress.start("windows", len(closed))
    for window in closed:
        held = await ingestor.close(window)  # None: a new episode; else the status of the one holding it
        result.new_windows += held is None
        if batcher is not None:
            if held in (None, EpisodeStatus.PENDING):
                queued[len(found)] = window.key
                if held is not None:
                    held_pending.add(len(found))
            status = held or EpisodeStatus.PENDING
        else:
            status = held if held is not None else await ingestor.extract(window.key)
        found.append(status.value)
        result.windows += 1
        progress.advance("windows")
    if batcher is not None and queued:
        progress.start("extracted", len(queued))
        settled = await batcher.extract_due(parsed.guild.id, everything=True, progress=lambda n: progress.advance("extracted", n))
        for position, key in queued.items():
            if key not in settled and position in held_pending:
                continue  # held by an episode of another key (a member's messages forgotten since)
            status = settled.get(key, EpisodeStatus.PENDING)
            result.failed += int(status == EpisodeStatus.FAILED)
            if status == EpisodeStatus.PENDING:  # the breaker opened before its batch went
                result.parked += 1
                found[position] = "parked"
            else:
                found[position] = status.value
    for value in found:
        result.statuses[value] = result.statuses.get(value, 0) + 1
    emit(
        "import",
        "file_imported",
        file=path.name,
        messages=result.messages,
        windows=result.windows,
        skipped=len(result.skipped),
        opted_out=result.opted_out,
    )
    return result
