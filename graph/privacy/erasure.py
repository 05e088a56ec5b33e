"""What members delete or change on Discord leaves the memory.

A deleted message takes with it the facts drawn only from it, the entities those facts alone touched, the
reports (REPORTED_BY edges) and provenance keyed by it, and the summary of the episode that held it (dropped,
not rewritten: a summary cannot be split by message without another LLM call, and one that still carries the
removed content must not be recalled). A fact with other sources stays, with those sources only, and its
audience narrows to theirs (graph/privacy/guards/scope.py).

An edited message keeps its new text; the facts drawn only from its old text, its reports on other facts and
its episode's summary go as for a delete, and when its episode was extracted it waits to be extracted again
from the new text (graph/writes/reextract.py). An edit only narrows what an opted-out member left: the edited
message of one (or in their DM space) goes as if deleted, its new text never stored, and an opted-out
member's `<@id>` mention in the new text of another's is masked (graph/privacy/guards/optout_guard.py, read in the
edit's own transaction). Each change is one transaction.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from common.text import MENTION
from graph.changes import touches
from graph.models import iso
from graph.privacy.guards import optout_guard
from graph.privacy.guards.consent import keyed
from graph.session import Tx, run
from graph.store import GraphStore
from graph.writes import reextract
from graph.writes.message_deletes import delete_messages


@dataclass(frozen=True)
class Erased:
    messages: int = 0
    facts: int = 0
    reports: int = 0
    entities: int = 0
    summaries: int = 0


async def _erase_content(tx: Tx, ids: list[str]) -> Erased:
    sole = await run(tx, "erasure/sole_source_facts", ids=ids)
    uuids = [str(r["uuid"]) for r in sole]
    touched = sorted({str(e) for r in sole for e in r["entities"]})
    reports = await run(tx, "erasure/drop_reports", ids=ids)
    facts = await run(tx, "erasure/delete_facts", uuids=uuids) if uuids else []
    await run(tx, "store/narrow_audience", ids=ids)  # what they told leaves where the others were (graph/privacy/guards/scope.py)
    entities = await run(tx, "erasure/orphan_entities", uuids=touched) if touched else []
    summaries = await run(tx, "erasure/drop_summaries", ids=ids)
    return Erased(
        facts=int(facts[0]["facts"]) if facts else 0,
        reports=int(reports[0]["reports"]) if reports else 0,
        entities=int(entities[0]["entities"]) if entities else 0,
        summaries=int(summaries[0]["episodes"]) if summaries else 0,
    )


async def erase_messages(store: GraphStore, ids: list[str]) -> Erased:
    """Deleted messages and everything drawn only from them."""
    if not ids:
        return Erased()

    async def work(tx: Tx) -> Erased:
        erased = await _erase_content(tx, ids)
        deleted = await delete_messages(tx, ids)
        return Erased(deleted.messages, erased.facts, erased.reports, erased.entities, erased.summaries)

    return await store.runner.write(work)


async def apply_edit(store: GraphStore, message_id: str, content: str, edited_at: datetime) -> Erased:
    """A changed message: its new text, and nothing kept of the old one. An edit no newer than the stored one
    (a replay) changes nothing."""

    async def work(tx: Tx) -> Erased:
        stored = await run(tx, "store/messages_stored", ids=[message_id])
        if not stored:
            return Erased()
        owner = optout_guard.dm_owner(str(stored[0]["guild_id"]))
        author = str(stored[0]["author_id"])
        involved = {author, *MENTION.findall(content), *([owner] if owner else [])}
        out = await optout_guard.opted_out(tx, keyed(store), involved)
        if author in out or owner in out:  # what they left only narrows: the message goes, nothing new is stored
            erased = await _erase_content(tx, [message_id])
            deleted = await delete_messages(tx, [message_id])
            return Erased(deleted.messages, erased.facts, erased.reports, erased.entities, erased.summaries)
        content_ = optout_guard.masked(content, out)
        found = await run(tx, "erasure/edit_if_newer", id=message_id, content=content_, edited_at=iso(edited_at))
        if not found or not found[0]["changed"]:
            return Erased()
        erased = await _erase_content(tx, [message_id])
        await reextract.mark(tx, message_id, edited_at)  # its new text is extracted again (ingest/extraction/reextraction.py)
        return erased

    return await store.runner.write(work)


@dataclass(frozen=True)
class ChannelErased:
    erased: Erased
    episodes: int
    residue: list[str]  # traces the audit found afterwards; empty when nothing is left


async def _erase_told(tx: Tx, guild_id: str, channel_ids: list[str]) -> tuple[int, int]:
    """The facts told only in `channel_ids` (their stored audience, sourced or not) go; the others leave those
    channels out of their audience. Returns the facts and entities deleted."""
    told = await run(tx, "erasure/channel_facts", guild_id=guild_id, channel_ids=channel_ids)
    uuids = [str(r["uuid"]) for r in told]
    touched = sorted({str(e) for r in told for e in r["entities"]})
    facts = await run(tx, "erasure/delete_facts", uuids=uuids) if uuids else []
    await run(tx, "erasure/leave_audience", guild_id=guild_id, channel_ids=channel_ids)
    entities = await run(tx, "erasure/orphan_entities", uuids=touched) if touched else []
    return (int(facts[0]["facts"]) if facts else 0), (int(entities[0]["entities"]) if entities else 0)


async def channel_residue(store: GraphStore, guild_id: str, channel_ids: list[str], message_ids: list[str]) -> list[str]:
    """What an erased channel and its threads left: their messages, reports keyed by the erased messages, their
    episodes, and facts whose audience still names one of them. Empty when the erasure is complete."""
    found = await store.runner.read("erasure/channel_residue", guild_id=guild_id, channel_ids=channel_ids, ids=message_ids)
    return [str(r["trace"]) for r in found]


async def erase_channel(store: GraphStore, guild_id: str, channel_id: str) -> ChannelErased:
    """Every message of a channel and its threads, as deleted messages; then its episodes and every fact told only
    there (sourced or not: retention keeps facts without their messages), the channels leaving the audience of
    the facts told elsewhere too; and an audit of what is left (the channel nodes and their modes stay)."""
    [found] = await store.runner.read("erasure/channel_messages", guild_id=guild_id, channel_id=channel_id)
    ids, channel_ids = [str(i) for i in found["ids"]], sorted({str(c) for c in found["channel_ids"]})
    erased = await erase_messages(store, ids)

    async def rest(tx: Tx) -> tuple[int, int, int]:
        touches([guild_id])
        episodes = await run(tx, "erasure/empty_episodes", guild_id=guild_id, channel_ids=channel_ids)
        facts, entities = await _erase_told(tx, guild_id, channel_ids)
        return (int(episodes[0]["episodes"]) if episodes else 0), facts, entities

    episodes, facts, entities = await store.runner.write(rest)
    erased = replace(erased, facts=erased.facts + facts, entities=erased.entities + entities)
    return ChannelErased(erased, episodes, await channel_residue(store, guild_id, channel_ids, ids))


async def forgettable_facts(
    store: GraphStore, guild_id: str, user_id: str, channel_id: str | None = None
) -> list[dict[str, Any]]:
    """The facts a member may forget in one guild (about them, or only they reported), with the
    entities each touches: rows of `uuid`, `text`, `entities`, and `shown`: whether it may be shown in
    `channel_id` (graph/privacy/guards/scope.py; None: everywhere)."""
    return await store.runner.read("store/forgettable_facts", guild_id=guild_id, user_id=user_id, channel_id=channel_id)


async def delete_facts(store: GraphStore, guild_id: str, uuids: list[str], touched_entities: list[str]) -> int:
    """Delete facts, then the entities they touched that nothing is about or links to any more."""

    async def work(tx: Tx) -> int:
        touches([guild_id])
        deleted = await run(tx, "store/delete_facts", uuids=uuids, guild_id=guild_id)
        await run(tx, "store/drop_orphan_entities", uuids=touched_entities, guild_id=guild_id)
        return int(deleted[0]["deleted"]) if deleted else 0

    return await store.runner.write(work)
