"""Episodes: a closed window stored as a pending episode, its status as extraction goes, and an extraction's
result written in one transaction that starts from indexes (graph/writes/episode_rows.py); facts stated to the bot
directly go the same way. An opted-out member's part is left out inside the same transaction
(graph/privacy/guards/optout_guard.py)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from common.clock import now_utc
from common.text import name_key
from graph.changes import touches
from graph.models import Corroboration, EpisodeClose, EpisodeStatus, EpisodeWrite, FactWrite, fact_key, iso
from graph.privacy.guards import optout_guard
from graph.privacy.guards.consent import consent_key, keyed
from graph.session import Tx, run
from graph.store import GraphStore
from graph.writes import episode_rows


@dataclass(frozen=True)
class WriteOutcome:
    written: bool  # False: the episode was already written, nothing changed
    facts: int = 0
    corroborations: int = 0
    superseded: int = 0
    entities: int = 0
    relations: int = 0


async def close_episode(store: GraphStore, close: EpisodeClose) -> str:
    result = await store.runner.write_guilds(
        [close.guild_id],
        False,
        "store/close_episode",
        key=close.key,
        uuid=close.uuid,
        guild_id=close.guild_id,
        channel_id=close.channel_id,
        started_at=iso(close.started_at),
        ended_at=iso(close.ended_at),
        message_ids=list(close.message_ids),
        participant_ids=list(close.participant_ids),
        status=close.status.value,
        now=iso(now_utc()),
    )
    if not result:
        raise LookupError(f"channel {close.channel_id} is not recorded: record it before closing its windows")
    return str(result[0]["status"])


async def mark_episode(
    store: GraphStore,
    key: str,
    status: EpisodeStatus,
    error: str | None = None,
    *,
    attempt: bool = False,
    tokens: tuple[int, int] = (0, 0),
) -> None:
    await store.runner.write_one(
        "store/mark_episode",
        key=key,
        status=status.value,
        error=error,
        attempt=1 if attempt else 0,
        now=iso(now_utc()),
        prompt_tokens=tokens[0],
        completion_tokens=tokens[1],
    )


async def write_episode(store: GraphStore, episode: EpisodeWrite, now: datetime | None = None) -> WriteOutcome:
    """One extraction result in one transaction; a second write of the same key changes nothing."""
    at = iso(now or now_utc())

    async def work(tx: Tx) -> WriteOutcome:
        keys = {consent_key(store, i): i for i in {*optout_guard.episode_users(episode), *episode.people} if i}
        current = await run(tx, "store/episode_to_write", key=episode.key, keys=sorted(keys))
        if not current:
            raise LookupError(f"episode {episode.key} was never closed")
        if current[0]["status"] == EpisodeStatus.DONE.value:
            return WriteOutcome(written=False)
        out = {keys[k] for k in current[0]["opted_out"]}
        finish = {
            "summary": "" if out & set(episode.people) else episode.summary,  # it would tell what they said
            "fact_count": len(episode.facts),
            "prompt_tokens": episode.prompt_tokens,
            "completion_tokens": episode.completion_tokens,
        }
        touches([episode.guild_id], facts=False)  # write_body says which facts it wrote
        return await write_body(tx, episode.guild_id, episode.key, optout_guard.allowed_episode(episode, out), at, finish)

    return await store.runner.write(work)


async def write_command_facts(
    store: GraphStore, guild_id: str, facts: list[FactWrite], entities: EpisodeWrite | None = None
) -> WriteOutcome:
    """Facts stated to the bot directly ("remember ..."), with any new entities they need."""
    at = iso(now_utc())
    body = entities or EpisodeWrite(key="", guild_id=guild_id)
    body = body.model_copy(update={"facts": tuple(facts)})

    async def work(tx: Tx) -> WriteOutcome:
        touches([guild_id], facts=False)  # write_body says which facts it wrote
        out = await optout_guard.opted_out(tx, keyed(store), optout_guard.episode_users(body))
        return await write_body(tx, guild_id, None, optout_guard.allowed_episode(body, out), at)

    return await store.runner.write(work)


async def restated(
    tx: Tx, guild_id: str, body: EpisodeWrite, at: str, limit: int = 2_000
) -> tuple[EpisodeWrite, list[Corroboration]]:
    """The episode's facts less those the guild holds already, current, by `fact_key` (a fact another window
    stated, of the same batch or extracted before, neither shown the other's): each becomes a corroboration of
    the stored fact by its reporters not on it yet, and its `supersedes` are ignored, as resolution does. Up to
    `limit` stored facts of each kind of subject are compared. Also returned: the reports of reporters on it
    already, in messages new to it: not corroborations, yet new sources, whose channels join its audience."""
    users = sorted({r.id for f in body.facts for r in f.about if r.kind == "user"})
    entities = sorted({r.id for f in body.facts for r in f.about if r.kind == "entity"})
    rows = await run(tx, "store/facts_restated", guild_id=guild_id, user_ids=users, entity_uuids=entities, now=at, limit=limit)
    stored = {fact_key(r["text"], (str(a) for a in r["about"])): r for r in rows}
    facts: list[FactWrite] = []
    corroborations = list(body.corroborations)
    repeats: list[Corroboration] = []
    for fact in body.facts:
        found = stored.get(fact_key(fact.text, (ref.id for ref in fact.about)))
        if found is None:
            facts.append(fact)
            continue
        uuid = str(found["uuid"])
        reported = {str(r) for r in found["reporters"]} | {c.report.user_id for c in corroborations if c.fact_uuid == uuid}
        for report in fact.reports:
            if report.user_id not in reported:
                corroborations.append(Corroboration(fact_uuid=uuid, report=report))
                reported.add(report.user_id)
            else:
                repeats.append(Corroboration(fact_uuid=uuid, report=report))
    return body.model_copy(update={"facts": tuple(facts), "corroborations": tuple(corroborations)}), repeats


async def write_body(
    tx: Tx, guild_id: str, key: str | None, body: EpisodeWrite, at: str, finish: dict[str, Any] | None = None
) -> WriteOutcome:
    """The extraction result's statements; with `finish` (an episode's summary, fact count, tokens) the episode
    is marked done too (with its facts when it has any, else by store/finish_episode)."""
    entities = [
        {
            "uuid": e.uuid,
            "name": e.name,
            "name_key": name_key(e.name),
            "kind": e.kind,
            "aliases": list(e.aliases),
            "alias_text": " ".join(e.aliases),
        }
        for e in body.entities
    ]
    if entities:
        await run(tx, "store/write_entities", entities=entities, guild_id=guild_id, now=at)
    repeats: list[Corroboration] = []
    if body.facts and key:
        body, repeats = await restated(tx, guild_id, body, at)
        if finish is not None:
            finish = {**finish, "fact_count": len(body.facts)}
    if body.facts and key:  # new facts with all their edges in one statement (graph/writes/episode_rows.py)
        new_rows = episode_rows.new_fact_rows(body.facts)
        await run(tx, "store/write_episode_facts", facts=new_rows, guild_id=guild_id, key=key, now=at, finish=finish)
    elif finish is not None:
        await run(tx, "store/finish_episode", key=key, now=at, **finish)
    elif body.facts:
        facts = episode_rows.command_fact_rows(body.facts)
        await run(tx, "store/write_command_facts", facts=facts, guild_id=guild_id, now=at)
    links = [
        {"fact_uuid": f.uuid, "rel": rel, "target_kind": ref.kind, "target_id": ref.id}
        for f in body.facts
        if not key
        for rel, refs in (("ABOUT", f.about), ("MENTIONS", f.mentions))
        for ref in refs
    ]
    if links:
        await run(tx, "store/write_fact_links", links=links, guild_id=guild_id)
    relations = [
        {"entity_uuid": r.entity_uuid, "kind": r.kind, "target_kind": r.target.kind, "target_id": r.target.id}
        for r in body.relations
    ]
    if relations:
        await run(tx, "store/write_relations", relations=relations, guild_id=guild_id, now=at)
    reports = [
        {"fact_uuid": f.uuid, "user_id": r.user_id, "message_id": r.message_id, "at": iso(r.at), "episode_key": key}
        for f in body.facts
        if not key
        for r in f.reports
    ] + [
        {
            "fact_uuid": c.fact_uuid,
            "user_id": c.report.user_id,
            "message_id": c.report.message_id,
            "at": iso(c.report.at),
            "episode_key": key,
        }
        for c in (*body.corroborations, *repeats)
    ]
    if reports:
        await run(tx, "store/write_reports", reports=reports, guild_id=guild_id)
    supersessions = [{"new_uuid": f.uuid, "old_uuid": old} for f in body.facts for old in f.supersedes]
    touches(  # what a process's read model of the facts reads again (graph/reads/fact_model.py)
        [guild_id],
        fact_uuids={
            *(f.uuid for f in body.facts),
            *(str(s["old_uuid"]) for s in supersessions),
            *(str(r["fact_uuid"]) for r in reports),
        },
        entity_uuids={str(e["uuid"]) for e in entities},
    )
    superseded = 0
    if supersessions:
        result = await run(tx, "store/write_supersessions", supersessions=supersessions, guild_id=guild_id, now=at)
        superseded = int(result[0]["superseded"]) if result else 0
    return WriteOutcome(
        written=True,
        facts=len(body.facts),
        corroborations=len(body.corroborations),
        superseded=superseded,
        entities=len(entities),
        relations=len(relations),
    )
