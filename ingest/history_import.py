"""Importing a channel's history from a DiscordChatExporter JSON export.

Windows are formed from the timestamps exactly as the live bot forms them (`replay`), then
extracted, or left pending when no LLM is configured. The closed windows
queue as pending episodes and, once the file is read, the guild's queue is extracted in batches (as
`grapevine ingest --pending` does): a quiet server's windows share calls. Everything is idempotent on
Discord ids and window keys, so importing the same file twice adds nothing.

Opted-out (and forgotten) members are read when the file is written, not when it was opened: before each batch
and once after the last, so an opt-out during the parse or the import holds. Nothing of theirs is stored: not
their messages, not a DM space of theirs (the bot's replies there included), and not the names the file gives
them where those identify them in others' words (common/names.py; rewritten "[forgotten]"). A window whose
episode a forget removed meanwhile is counted as such, and the rest are extracted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from common.events import emit
from common.settings import WindowSettings
from common.text import redact
from graph.models import EpisodeStatus, Message
from graph.privacy.guards.consent import Consent
from graph.privacy.guards.optout_guard import dm_owner, mentioned
from graph.reads.backlog import episode_by_key, episodes_by_status, episodes_holding
from graph.store import GraphStore
from graph.writes.discord_records import ChannelElsewhere
from graph.writes.messages import Place, record_batch
from ingest.export_format import ExportFormatError, ParsedExport, SkippedMessage, parse_export
from ingest.ingestor import Ingestor
from ingest.replay import replay
from ingest.windows import ClosedWindow, WindowMessage

BATCH = 500
VANISHED = "forgotten meanwhile"  # a window whose episode a forget removed while the import ran


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
    opted_out: int = 0  # messages left out: their author, or the owner of the DM space, opted out
    dm_owner_opted_out: bool = False  # a DM export of a member who opted out: nothing of it stored
    names_hidden: int = 0  # messages stored with an opted-out member's name rewritten
    skipped: list[SkippedMessage] = field(default_factory=list)
    system_types: dict[str, int] = field(default_factory=dict)  # system messages left out, by type, as the bot does
    statuses: dict[str, int] = field(default_factory=dict)  # each window's status once the import ends
    failed: int = 0  # of the windows this import extracted: failed, or
    parked: int = 0  # left pending because the LLM's circuit breaker opened
    pending: int = 0  # left pending with the LLM answering (`grapevine ingest --pending` extracts them)
    vanished: int = 0  # windows a forget removed whole while the import ran: nothing of them left to extract

    def left_out(self) -> dict[str, int]:
        """How many of the file's messages were not stored, by why ("system message (Call)": 1, "malformed": 2)."""
        counts = {f"system message ({kind})": n for kind, n in sorted(self.system_types.items())}
        for skipped in self.skipped:
            counts[skipped.kind] = counts.get(skipped.kind, 0) + 1
        if self.opted_out:
            counts["opted out"] = self.opted_out
        return counts


class _Hiding:
    """Which of the file's members are opted out, read again before each write, and the names the file gives them
    that identify them in the guild (what others wrote is stored with those rewritten)."""

    def __init__(self, consent: Consent, parsed: ParsedExport) -> None:
        self.consent, self.parsed = consent, parsed
        self.owner = dm_owner(parsed.guild.id)
        self.involved = {m.author_id for m in parsed.messages} | mentioned(parsed.messages) | set(parsed.users)
        self.out: set[str] = set()
        self.names: list[str] = []
        self.original = {m.id: m.content for m in parsed.messages}

    async def check(self, result: ImportResult) -> bool:
        """Read the opt-outs now (once out, out for the rest of the import); False when the file is the DM space of
        a member who opted out: nothing of it is stored."""
        now = await self.consent.refresh_among(self.involved)
        if not now <= self.out:
            self.out |= now
            self.names = await self.consent.hidden_names(self.parsed.guild.id, self.parsed.users, self.out)
        if self.owner is not None and self.owner in self.out:
            result.dm_owner_opted_out = True
            result.messages = result.new_messages = 0
            result.opted_out = len(self.parsed.messages)
            return False
        return True

    def allowed(self, messages: list[Message]) -> list[Message]:
        """The messages of members not opted out, with the opted-out members' names rewritten."""
        kept = [m for m in messages if m.author_id not in self.out]
        if not self.names:
            return kept
        return [
            m if (text := redact(m.content, self.names)) == m.content else m.model_copy(update={"content": text}) for m in kept
        ]

    async def rewrite(self, written: list[Message]) -> int:
        """Messages written before an opt-out learned after them: their new text stored."""
        if not self.names:
            return 0
        changed = [
            (m.id, text) for m in written if m.author_id not in self.out and (text := redact(m.content, self.names)) != m.content
        ]
        return await self.consent.rewrite_stored(changed)

    def rewritten(self, messages: list[Message]) -> int:
        return sum(1 for m in messages if m.content != self.original.get(m.id, m.content))


async def import_export(
    path: Path,
    store: GraphStore,
    ingestor: Ingestor,
    consent: Consent,
    windows: WindowSettings,
    *,
    progress: ImportProgress | None = None,
) -> ImportResult:
    """Import one export file; a file that does not parse raises ExportFormatError before any write."""
    progress = progress or _Silent()
    parsed: ParsedExport = parse_export(path)
    result = ImportResult(path=path, skipped=list(parsed.skipped), system_types=dict(parsed.system_types))
    hiding = _Hiding(consent, parsed)
    allowed = await _record(store, parsed, hiding, result, progress)
    if allowed is not None:
        stream = (WindowMessage(m, parsed.users[m.author_id]) for m in sorted(allowed, key=lambda m: (m.created_at, m.id)))
        closed = list(replay(stream, windows))  # rules over messages in memory: cheap, and it gives the total
        await _windows(store, ingestor, parsed.guild.id, closed, result, progress)
    emit(
        "import",
        "file_imported",
        file=path.name,
        messages=result.messages,
        windows=result.windows,
        skipped=len(result.skipped),
        opted_out=result.opted_out,
        vanished=result.vanished,
    )
    return result


async def _record(
    store: GraphStore, parsed: ParsedExport, hiding: _Hiding, result: ImportResult, progress: ImportProgress
) -> list[Message] | None:
    """Store the file's guild, channel, authors and messages; returns the messages stored (None: nothing, the file
    being the DM space of a member who opted out). A file with no message to store stores no place either."""
    progress.start("messages", parsed.total)  # every message of the file, those left out included
    if not await hiding.check(result):
        return None
    allowed = hiding.allowed(parsed.messages)
    result.opted_out = len(parsed.messages) - len(allowed)
    if not allowed:
        progress.advance("messages", parsed.total)
        return []
    refused: set[str] = set()
    written: list[Message] = []
    for start in range(0, len(allowed), BATCH):
        if not await hiding.check(result):
            return None  # the DM space's owner opted out meanwhile: their forget removes what was written
        batch = hiding.allowed(allowed[start : start + BATCH])
        place = Place(parsed.guild, parsed.channel, [parsed.users[a] for a in sorted({m.author_id for m in batch})])
        try:  # the place is written with the batch's messages, if one is stored: a file refused whole stores none
            recorded = await record_batch(store, batch, {}, {}, place)
        except ChannelElsewhere as exc:  # refused in the first batch, before anything is written
            raise ExportFormatError(result.path, str(exc)) from None
        refused.update(recorded.refused)
        written += batch
        result.new_messages += recorded.created
        progress.advance("messages", len(allowed[start : start + BATCH]))
    progress.advance("messages", parsed.total - len(allowed))  # those left out: system, malformed, opted out
    if not await hiding.check(result):
        return None
    await hiding.rewrite(written)  # an opt-out that came while the batches were written
    allowed = hiding.allowed(written)
    result.skipped += [
        SkippedMessage(
            parsed.positions[m.id],
            m.id,
            "its id is stored for a message of another guild, channel or author",
            "id stored elsewhere",
        )
        for m in allowed
        if m.id in refused
    ]
    allowed = [m for m in allowed if m.id not in refused]
    result.messages = len(allowed)
    result.opted_out = len(parsed.messages) - len(hiding.allowed(parsed.messages))
    result.names_hidden = hiding.rewritten(allowed)
    return allowed


async def _windows(
    store: GraphStore,
    ingestor: Ingestor,
    guild_id: str,
    closed: list[ClosedWindow],
    result: ImportResult,
    progress: ImportProgress,
) -> None:
    """Close each window as a pending episode and extract them (in batches with an LLM); count each one's end."""
    batcher = ingestor if ingestor.llm is not None else None
    found: list[str] = []  # each window's status
    queued: dict[int, ClosedWindow] = {}  # position in `found` -> window, for windows waiting for the batches below
    progress.start("windows", len(closed))
    status: EpisodeStatus | None
    for window in closed:
        held = await ingestor.close(window)  # None: a new episode; else the status of the one holding it
        result.new_windows += held is None
        if batcher is not None and held in (None, EpisodeStatus.PENDING):
            queued[len(found)] = window
        status = held if held is not None else await _status(store, window)
        found.append(status.value if status is not None else VANISHED)
        result.windows += 1
        progress.advance("windows")
    if batcher is not None and queued:
        progress.start("extracted", len(queued))
        await _extract_all(batcher, guild_id, len(queued), lambda n: progress.advance("extracted", n))
        parked = batcher.parked
        for position, window in queued.items():  # what the graph holds now, whatever a forget did meanwhile
            status = await _status(store, window)
            found[position] = (
                VANISHED if status is None else "parked" if status == EpisodeStatus.PENDING and parked else status.value
            )
    for value in found:
        result.statuses[value] = result.statuses.get(value, 0) + 1
    extracted = [found[p] for p in queued]  # what this import sent to the LLM
    result.failed = extracted.count(EpisodeStatus.FAILED.value)
    result.parked = extracted.count("parked")
    result.pending = extracted.count(EpisodeStatus.PENDING.value)
    result.vanished = result.statuses.get(VANISHED, 0)


async def _status(store: GraphStore, window: ClosedWindow) -> EpisodeStatus | None:
    """The status of the episode holding the window now: its own key's, or (a forget having re-keyed it, its key
    built from a forgotten message's id) the one holding what is left of its messages; None when a forget
    removed it whole."""
    episode = await episode_by_key(store, window.key)
    if episode is not None:
        return episode.status
    holding = await episodes_holding(store, list(window.message_ids))
    return min((status for _, status, _ in holding), key=_progress) if holding else None


def _progress(status: EpisodeStatus) -> int:
    """Least done first (as ingest/ingestor.py reports a window several episodes hold)."""
    return (EpisodeStatus.FAILED, EpisodeStatus.PENDING, EpisodeStatus.SKIPPED, EpisodeStatus.DONE).index(status)


async def _extract_all(batcher: Ingestor, guild_id: str, windows: int, progress: Callable[[int], None]) -> None:
    """The guild's queue extracted in batches. An episode a forget removed or re-keyed after the queue was read is
    not there to extract: the queue is read again and the rest go on (a round per episode lost, at most)."""
    for _ in range(windows + 1):
        try:
            await batcher.extract_due(guild_id, everything=True, progress=progress)
        except LookupError:
            continue
        if batcher.llm is None or batcher.parked:
            return
        if not await episodes_by_status(batcher.store, [EpisodeStatus.PENDING], guild_id=guild_id, limit=1):
            return
