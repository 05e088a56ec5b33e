"""`/memory export`: a member's data access request, answered in their DMs only.

Everything stored about and from them (graph/privacy/export.py) goes as JSON files, one a message, each at most
PAGE_BYTES: Discord refuses an upload over its size limit (10 MiB without boosts), so a large member's
facts, messages and summaries are paged over several files, each a whole JSON document that names its
part. The file never goes to a channel; if their DMs are closed they are told so in one line, and the
log carries counts only, never what the files hold.
"""

from __future__ import annotations

import io
import json
import logging
from datetime import UTC, datetime
from typing import Any

import discord

from bot.services import Services
from common.events import emit
from graph.privacy.export import export_member

PAGE_BYTES = 8 * 1024 * 1024  # each file; under discord.py's DEFAULT_FILE_SIZE_LIMIT_BYTES (10 MiB)
SECTIONS = ("facts", "messages", "summaries", "facts_naming_them", "summaries_naming_them")

NOTHING = "I don't hold anything about you or from you, so there is nothing to send."
SENT = "I've sent you everything I hold about you and from you in a DM ({files})."
DMS_CLOSED = "I couldn't DM you: your DMs are closed to me. Allow direct messages from this server's members and ask again."
SEND_FAILED = "Discord refused part of the export just now; please ask again in a bit."
INTRO = (
    "Here is everything I store about you and from you: facts (with who said them, from which message and "
    "when they held), your messages, summaries of the conversations you took part in, and what others said "
    "that names you or something of yours."
)


def _dump(value: Any, indent: int | None = 1) -> bytes:
    return json.dumps(value, ensure_ascii=False, indent=indent, sort_keys=False).encode()


def pages(data: dict[str, Any], max_bytes: int = PAGE_BYTES, exported_at: datetime | None = None) -> list[bytes]:
    """The export as JSON documents of at most `max_bytes` each: every one holds the account, its part
    number, and a share of the facts, messages and summaries, in their order. ValueError when one record
    alone does not fit."""
    head = {k: v for k, v in data.items() if k not in SECTIONS}
    head["exported_at"] = (exported_at or datetime.now(UTC)).isoformat(timespec="seconds")
    items = [(section, item) for section in SECTIONS for item in data.get(section, [])]

    def document(chunk: list[tuple[str, Any]], part: int, parts: int) -> dict[str, Any]:
        body: dict[str, Any] = {**head, "part": part, "parts": parts}
        for section in SECTIONS:
            body[section] = [item for s, item in chunk if s == section]
        return body

    widest = 10**9  # part numbers no export reaches: sizes measured with them only shrink when renumbered
    skeleton = len(_dump(document([], widest, widest)))
    chunks: list[list[tuple[str, Any]]] = [[]]
    size = skeleton
    for section, item in items:
        dumped = _dump(item)
        width = len(dumped) + 2 * (dumped.count(b"\n") + 1) + 2  # as nested two levels deep, with its comma
        if skeleton + width > max_bytes:
            raise ValueError(f"one {section[:-1]} alone is larger than a {max_bytes}-byte file")
        if chunks[-1] and size + width + 1 > max_bytes:
            chunks.append([])
            size = skeleton
        chunks[-1].append((section, item))
        size += width + 1

    def fitting(chunk: list[tuple[str, Any]]) -> list[list[tuple[str, Any]]]:
        """Should a document still come out longer than its records were measured: halve it."""
        if len(chunk) < 2 or len(_dump(document(chunk, widest, widest))) <= max_bytes:
            return [chunk]
        half = len(chunk) // 2
        return fitting(chunk[:half]) + fitting(chunk[half:])

    final = [piece for chunk in chunks for piece in fitting(chunk)]
    encoded = [_dump(document(chunk, i, len(final))) for i, chunk in enumerate(final, 1)]
    if any(len(page) > max_bytes for page in encoded):
        raise ValueError(f"a record does not fit a {max_bytes}-byte file")
    return encoded


def file_name(part: int, parts: int) -> str:
    return "grapevine-export.json" if parts == 1 else f"grapevine-export-part-{part}-of-{parts}.json"


async def deliver(services: Services, user: discord.User | discord.Member, max_bytes: int = PAGE_BYTES) -> str:
    """Gather the member's export and DM it, one file a message; returns the one line to answer with."""
    data = await export_member(services.store, str(user.id))
    if data is None:
        emit("bot", "memory_export", user_id=str(user.id), files=0)
        return NOTHING
    documents = pages(data, max_bytes)
    sent = 0
    try:
        for part, document in enumerate(documents, 1):
            intro = INTRO if part == 1 else None
            await user.send(intro, file=discord.File(io.BytesIO(document), filename=file_name(part, len(documents))))
            sent += 1
    except discord.Forbidden as exc:
        emit("bot", "memory_export_undelivered", user_id=str(user.id), sent=sent, code=exc.code, level=logging.WARNING)
        return DMS_CLOSED if sent == 0 else SEND_FAILED
    except discord.HTTPException as exc:
        emit("bot", "memory_export_undelivered", user_id=str(user.id), sent=sent, status=exc.status, level=logging.WARNING)
        return SEND_FAILED
    emit(
        "bot",
        "memory_export",
        user_id=str(user.id),
        files=len(documents),
        bytes=sum(len(d) for d in documents),
        facts=len(data["facts"]),
        messages=len(data["messages"]),
        summaries=len(data["summaries"]),
    )
    return SENT.format(files="1 file" if len(documents) == 1 else f"{len(documents)} files")
