"""Retention: messages older than MEMORY_RETAIN_MESSAGES_DAYS and closed facts older than
MEMORY_RETAIN_CLOSED_FACTS_DAYS leave the graph (0 keeps them forever), in batches of one transaction each.

A message goes with its text, its edges (sent by, in episode, reply, fact provenance), the reply_to_id of
the replies to it, and its episode when no message is left in it (the summary was built only from those
messages); an episode that keeps newer messages keeps its summary, and one keyed by a removed message id is
keyed by its own uuid. The facts drawn from a message stay: they are what the memory distilled, and they
lose only their provenance (FROM the message, EXTRACTED_FROM a removed episode). A closed fact goes with
its edges, and the entities it alone touched. Each batch marks the engine's files due for a purge
(graph/privacy/purge.py), which removes the index keys the deleted records leave behind."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from common.clock import now_utc
from common.settings import MemorySettings
from graph.keys import channel_start, channel_time
from graph.models import iso, utc
from graph.privacy.purge import mark_due
from graph.session import Tx, run
from graph.store import GraphStore
from graph.writes.message_deletes import delete_messages

BATCH = 500  # records per transaction: one pass never holds a large transaction


@dataclass
class RetentionReport:
    messages: int = 0
    episodes: int = 0
    replies: int = 0  # replies to removed messages that stopped pointing at them
    facts: int = 0
    entities: int = 0
    batches: int = 0


async def _message_batch(tx: Tx, channel_id: str, cutoff: datetime, batch: int, now: datetime) -> tuple[int, int, int]:
    found = await run(
        tx, "retention/old_messages", from_key=channel_start(channel_id), to_key=channel_time(channel_id, cutoff), batch=batch
    )
    ids, episodes = sorted({r["id"] for r in found}), sorted({e for r in found for e in r["episodes"]})
    if not ids:
        return 0, 0, 0
    deleted = await delete_messages(tx, ids)
    emptied = (
        (await run(tx, "store/forget_episodes", uuids=episodes, ids=ids, drop_summaries=False))[0]["episodes"] if episodes else 0
    )
    await mark_due(tx, now)
    return deleted.messages, int(emptied), deleted.replies


async def _fact_batch(tx: Tx, cutoff: datetime, batch: int, now: datetime) -> tuple[int, int]:
    uuids = [r["uuid"] for r in await run(tx, "retention/closed_facts", cutoff=iso(cutoff), batch=batch)]
    if not uuids:
        return 0, 0
    [facts] = await run(tx, "store/forget_facts", uuids=uuids)
    touched = sorted(set(facts["touched"]))
    entities = (await run(tx, "store/forget_orphan_entities", uuids=touched))[0]["entities"] if touched else 0
    await mark_due(tx, now)
    return int(facts["facts"]), int(entities)


async def apply_retention(
    store: GraphStore, messages_days: int, closed_facts_days: int, now: datetime | None = None, *, batch: int = BATCH
) -> RetentionReport:
    """Messages and closed facts older than their bounds leave the graph (a bound of 0 keeps everything of its
    kind)."""
    runner, now = store.runner, utc(now or now_utc())
    report = RetentionReport()
    if messages_days > 0:
        cutoff = now - timedelta(days=messages_days)
        for row in await runner.read("retention/channels"):
            channel_id = str(row["id"])

            async def one(tx: Tx, channel_id: str = channel_id, cutoff: datetime = cutoff) -> tuple[int, int, int]:
                return await _message_batch(tx, channel_id, cutoff, batch, now)

            while True:
                done, emptied, replies = await runner.write(one)
                report.messages += done
                report.episodes += emptied
                report.replies += replies
                report.batches += 1 if done else 0
                if done < batch:
                    break
    if closed_facts_days > 0:
        cutoff = now - timedelta(days=closed_facts_days)
        while True:
            facts, entities = await runner.write(lambda tx: _fact_batch(tx, cutoff, batch, now))
            if not facts:
                break
            report.facts, report.entities, report.batches = report.facts + facts, report.entities + entities, report.batches + 1
    return report


async def retire_expired(store: GraphStore, now: datetime | None = None) -> int:
    """Facts whose own end (retire_at) has passed are closed; the facts retired."""
    at = utc(now or now_utc())
    result = await store.runner.write_one("store/retire_expired", now=at, at=iso(at))
    return int(result[0]["retired"]) if result else 0


def retention_text(memory: MemorySettings) -> str:
    """The retention settings, as `memory status` and `grapevine stats` show them."""

    def days(n: int) -> str:
        return f"{n} days" if n else "forever"

    return (
        f"Retention: messages kept {days(memory.retain_messages_days)}, closed facts kept "
        f"{days(memory.retain_closed_facts_days)} (enforced at each upkeep, every {memory.upkeep_interval_hours:g} h)."
    )
