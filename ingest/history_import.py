"""Importing a channel's history from a DiscordChatExporter JSON export.

Windows are formed from the timestamps exactly as the live bot forms them (`replay`), then
extracted, or left pending when no LLM is configured. Everything is idempotent on Discord ids and
window keys, so importing the same file twice adds nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from common.events import emit
from common.settings import WindowSettings
from graph.consent import Consent
from graph.store import GraphStore
from ingest.export_format import ParsedExport, SkippedMessage, parse_export
from ingest.pipeline import Ingestor
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
    statuses: dict[str, int] = field(default_factory=dict)


async def import_export(
    path: Path,
    store: GraphStore,
    ingestor: Ingestor,
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
    for window in replay(stream, windows):
        status = await ingestor.submit(window)
        result.windows += 1
        result.statuses[status.value] = result.statuses.get(status.value, 0) + 1
        if on_window:
            on_window(status.value)
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
