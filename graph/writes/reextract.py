"""Edited messages waiting to be extracted again: the graph side of `ingest/extraction/reextraction.py`.

An edit to a message of an episode already extracted marks the message with the edit it waits for and flags
the episode, in the edit's own transaction (graph/privacy/erasure.py), so a restart finds the work where it was. The
facts of the new text are written into the same episode, and the marks cleared, in one transaction that
first checks the marks are still those read: a later edit or a second writer makes it write nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from common.clock import now_utc
from graph.changes import touches
from graph.models import EpisodeWrite, iso
from graph.privacy.guards import optout_guard
from graph.privacy.guards.consent import keyed
from graph.session import Tx, run
from graph.store import GraphStore
from graph.writes.episodes import WriteOutcome, write_body


@dataclass(frozen=True)
class Change:
    id: str
    edit: str  # the edit it waits for, as marked


async def mark(tx: Tx, message_id: str, edited_at: datetime) -> bool:
    """Inside the edit's transaction: True when the message's episode was extracted and now waits."""
    return bool(await run(tx, "reextract/mark", id=message_id, edited_at=iso(edited_at)))


async def waiting_episodes(store: GraphStore, guild_id: str | None = None, limit: int = 1000) -> list[tuple[str, str]]:
    """(episode key, guild id) of episodes holding messages that wait, oldest first."""
    found = await store.runner.read("reextract/marked_episodes", guild_id=guild_id, limit=limit)
    return [(str(r["key"]), str(r["guild_id"])) for r in found]


async def changes(store: GraphStore, key: str) -> tuple[list[Change], str]:
    """The episode's waiting messages and its channel's memory mode."""
    found = await store.runner.read("reextract/changed_messages", key=key)
    mode = str(found[0]["mode"]) if found else "private"
    return [Change(str(r["id"]), str(r["edit"])) for r in found], mode


def _rows(waiting: list[Change]) -> list[dict[str, str]]:
    return [{"id": c.id, "edit": c.edit} for c in waiting]


async def clear(store: GraphStore, key: str, waiting: list[Change]) -> None:
    """Given up on (an `off` channel, nothing left to send, a failed call): they wait no more."""
    await store.runner.write_one("reextract/clear", key=key, changes=_rows(waiting))


async def write(store: GraphStore, body: EpisodeWrite, waiting: list[Change]) -> WriteOutcome:
    """The new text's facts into the episode, as any extraction writes them (opt-outs held in the same
    transaction); nothing when a mark changed since it was read."""
    at = iso(now_utc())

    async def work(tx: Tx) -> WriteOutcome:
        still = await run(tx, "reextract/still_waiting", changes=_rows(waiting))
        if not still or int(still[0]["waiting"]) != len(waiting):
            return WriteOutcome(written=False)
        touches([body.guild_id])  # the episode's earlier facts change too: the guild's facts are read again
        out = await optout_guard.opted_out(tx, keyed(store), optout_guard.episode_users(body))
        counts = await write_body(tx, body.guild_id, body.key, optout_guard.allowed_episode(body, out), at)
        await run(tx, "reextract/clear", key=body.key, changes=_rows(waiting))
        return counts

    return await store.runner.write(work)
