"""Importing a channel's history from a DiscordChatExporter JSON export.

Windows are formed from the timestamps exactly as the live bot forms them (`replay`), then
extracted, or left pending when no LLM is configured. With a `BatchingIngestor` the closed windows
queue as pending episodes and, once the file is read, the guild's queue is extracted in batches (as
`grapevine ingest --pending` does): a quiet server's windows share calls. Everything is idempotent on
Discord ids and window keys, so importing the same file twice adds nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

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


@dataclass
class ImportResult:
    path: Path
    messages: int = 0
    windows: int = 0
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
    on_messages: Callable[[int], None] | None = None,
    on_window: Callable[[str], None] | None = None,
) -> ImportResult:
    """Import one export file; a file that does not parse raises ExportFormatError before any write."""
    parsed: ParsedExport = parse_export(path)
    result = ImportResult(path=path, skipped=list(parsed.skipped))
    allowed = [m for m in parsed.messages if consent.allowed(m.author_id)]
    result.opted_out = len(parsed.messages) - len(allowed)
    await store.upsert_guild(parsed.guild)
    await store.upsert_channel(parsed.channel)
    authors = {m.author_id for m in allowed}
    await store.upsert_users([u for uid, u in parsed.users.items() if uid in authors], parsed.guild.id)
    refused: set[str] = set()
    for start in range(0, len(allowed), BATCH):
        batch = allowed[start : start + BATCH]
        refused.update(await store.record_messages(batch))
        result.messages += len(batch)
        if on_messages:
            on_messages(len(batch))
    if refused:
        result.skipped += [
            SkippedMessage(parsed.positions[m.id], m.id, "its id is stored for a message of another guild, channel or author")
            for m in allowed
            if m.id in refused
        ]
        result.messages -= len(refused)
        allowed = [m for m in allowed if m.id not in refused]
    stream = (WindowMessage(m, parsed.users[m.author_id]) for m in sorted(allowed, key=lambda m: (m.created_at, m.id)))
    batcher = ingestor if ingestor.llm is not None else None
    found: list[str] = []  # each window's status
    queued: dict[int, str] = {}  # position in `found` -> key, for windows waiting for the batches below
    held_pending: set[int] = set()  # of those, windows an import without an LLM left pending
    for window in replay(stream, windows):
        if batcher is not None:
            held = await batcher.close(window)
            if held in (None, EpisodeStatus.PENDING):
                queued[len(found)] = window.key
                if held is not None:
                    held_pending.add(len(found))
            status = held or EpisodeStatus.PENDING
        else:
            status = await ingestor.submit(window)
        found.append(status.value)
        result.windows += 1
        if on_window:
            on_window(status.value)
    if batcher is not None and queued:
        settled = await batcher.extract_due(parsed.guild.id, everything=True)
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
