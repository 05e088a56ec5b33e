"""What is stored of a Discord message, one rule for the live bot and the import: conversation only (a plain
message or a reply; joins, pins, calls and the like are system messages), its text with the names of its
attachments and stickers, so that "look at this" is not stored as if nothing came with it."""

from __future__ import annotations

from collections.abc import Iterable

CONVERSATION_TYPES = frozenset({"default", "reply"})  # Discord's message types, as discord.py and the exporter name them


def is_conversation(message_type: str) -> bool:
    """True for a plain message or a reply ("Default", "Reply", discord.py's `default`, `reply`)."""
    return message_type.casefold() in CONVERSATION_TYPES


def stored_text(content: str, attachments: Iterable[str] = (), stickers: Iterable[str] = ()) -> str:
    """The text, then one line per attachment and per sticker, named."""
    names = [f"[attachment: {name}]" for name in attachments] + [f"[sticker: {name}]" for name in stickers]
    return "\n".join(part for part in [content, *names] if part)
