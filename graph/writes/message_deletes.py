"""Deleting messages, the one way every erasure does it (forget-me, retention, a deleted message or channel):
first the replies that stay stop pointing at them, then they go. In that order, so that no statement writes to
a message deleted earlier in the same transaction, which both engines refuse; and whatever order the engine
meets the rows in (an export's ids need not follow its replies)."""

from __future__ import annotations

from dataclasses import dataclass

from graph.session import Tx, run


@dataclass(frozen=True)
class Deleted:
    messages: int = 0
    replies: int = 0  # replies that stay, no longer pointing at a deleted message


async def delete_messages(tx: Tx, ids: list[str]) -> Deleted:
    if not ids:
        return Deleted()
    unlinked = await run(tx, "store/unlink_replies", ids=ids)
    deleted = await run(tx, "store/forget_messages", ids=ids)
    return Deleted(int(deleted[0]["messages"]) if deleted else 0, int(unlinked[0]["replies"]) if unlinked else 0)
