"""The temporal graph store: grapevine's async API over the Cypher files in `queries/`."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from neo4j import AsyncDriver

import queries
from common.text import lucene_query, name_key
from graph import rows, scope
from graph.engines import Engine
from graph.keys import channel_start, channel_time
from graph.models import (
    Channel,
    EntityView,
    Episode,
    EpisodeClose,
    EpisodeStatus,
    EpisodeWrite,
    FactView,
    FactWrite,
    Guild,
    Message,
    SchemaMismatch,
    User,
    iso,
    utc,
)
from graph.privacy import optout_guard, purge, retention
from graph.privacy.deletion import ForgetReport, forget_user
from graph.privacy.name_scope import NameScope
from graph.reads import activity as guild_activity
from graph.session import Runner, Tx, run, run_text
from graph.writes import episode_rows as episode_writes
from graph.writes import messages as message_writes
from graph.writes import user_cap

SCHEMA_VERSION = 1
# spans of a channel's history read for a window's earlier messages, widened while too few (None: all of it)
MESSAGES_BEFORE_SPANS: tuple[timedelta | None, ...] = (timedelta(hours=1), timedelta(days=1), timedelta(days=30), None)
CONSENT_KEYS_KEPT = 100_000  # user ids whose consent key is kept in memory (then the memo starts again)


def now_utc() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class WriteOutcome:
    written: bool  # False: the episode was already written, nothing changed
    facts: int = 0
    corroborations: int = 0
    superseded: int = 0
    entities: int = 0
    relations: int = 0


@dataclass
class GraphStore:
    driver: AsyncDriver
    engine: Engine
    runner: Runner = field(init=False)
    _salt: str | None = field(default=None, init=False)
    _consent_keys: dict[str, str] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        self.runner = Runner(self.driver, self.engine.database)

    # --- schema ---------------------------------------------------------------------------
    async def setup_schema(self, embedding_model: str = "", embedding_dimension: int | None = None) -> None:
        """Constraints, indexes and the schema record; refuses a graph set up differently."""
        for statement in queries.statements(queries.load("schema/constraints")):
            await self.runner.statement(statement)
        await self.engine.create_search_indexes(self.driver, embedding_dimension if embedding_model else None)
        await self.runner.write_one("schema/backfill_user_names")
        await self.runner.write_one("schema/backfill_message_keys")
        await self.runner.write_one("schema/backfill_retire_at")
        await scope.backfill_audience(self.runner)
        for statement in queries.statements(queries.load("schema/backfill_fact_keys")):  # graph/reads/activity.py
            await self.runner.statement(statement)
        meta = await self.runner.read("schema/read_meta")
        if not meta:
            await self.runner.write_one(
                "schema/write_meta",
                version=SCHEMA_VERSION,
                embedding_model=embedding_model,
                embedding_dimension=embedding_dimension or 0,
                salt=secrets.token_hex(16),
                now=iso(now_utc()),
            )
            meta = await self.runner.read("schema/read_meta")
        found = meta[0]
        if found["version"] != SCHEMA_VERSION:
            raise SchemaMismatch(
                f"the graph has schema version {found['version']}, this grapevine needs {SCHEMA_VERSION}: "
                "migrate the graph or point GRAPEVINE_DATA_DIR / NEO4J_URI at another database"
            )
        if (found["embedding_model"] or "") != embedding_model or (found["embedding_dimension"] or 0) != (
            embedding_dimension or 0 if embedding_model else 0
        ):
            raise SchemaMismatch(
                f"the graph was set up with embeddings {found['embedding_model'] or 'off'!r} "
                f"(dimension {found['embedding_dimension']}), the configuration asks for "
                f"{embedding_model or 'off'!r}: set EMBEDDINGS_MODEL to match, or use a new database"
            )
        self._salt = found["salt"]
        self._consent_keys.clear()

    # --- Discord records ------------------------------------------------------------------
    async def upsert_guild(self, guild: Guild) -> None:
        await self.runner.write_one("store/upsert_guild", id=guild.id, name=guild.name)

    async def upsert_channel(self, channel: Channel) -> None:
        await self.runner.write_one(
            "store/upsert_channel",
            id=channel.id,
            guild_id=channel.guild_id,
            name=channel.name,
            kind=channel.kind.value,
            parent_id=channel.parent_id,
        )

    async def upsert_users(self, users: list[User], guild_id: str | None = None) -> None:
        """Accounts; with `guild_id`, their display names are that guild's (kept on their membership)."""
        if not users:
            return

        async def work(tx: Tx) -> None:
            out = await optout_guard.opted_out(tx, self.consent_key, [u.id for u in users])
            rows_ = [
                {**u.model_dump(), "name_lower": u.name.casefold(), "display_lower": u.display_name.casefold()}
                for u in optout_guard.allowed_users(users, out)
            ]
            if rows_:
                await run(tx, "store/upsert_users", users=rows_, guild_id=guild_id)

        await self.runner.write(work)

    async def record_messages(self, messages: list[Message]) -> list[str]:
        """Store messages (a later edit of a stored one applies); returns the ids refused because a message
        of another guild, channel or author has them."""
        if not messages:
            return []
        return (await self.runner.write(lambda tx: message_writes.record(tx, self.consent_key, messages))).refused

    async def record_batch(
        self, messages: list[Message], authors: Mapping[str, User], upsert: Mapping[str, Sequence[User]]
    ) -> message_writes.Recorded:
        """A recorder's batch in one transaction: `upsert` (guild id -> new or changed users) and the messages;
        an author of `authors` found missing from the graph is upserted too (graph/writes/messages.py)."""
        return await self.runner.write(lambda tx: message_writes.record(tx, self.consent_key, messages, authors, upsert))

    async def edit_message(self, message_id: str, content: str, edited_at: datetime) -> bool:
        return bool(await self.runner.write_one("store/edit_message", id=message_id, content=content, edited_at=iso(edited_at)))

    async def delete_message(self, message_id: str) -> bool:
        result = await self.runner.write_one("store/delete_message", id=message_id)
        return bool(result and result[0]["deleted"])

    async def users(self, ids: list[str], guild_id: str | None = None) -> list[User]:
        return [rows.user(r) for r in await self.runner.read("store/users_by_id", ids=ids, guild_id=guild_id)]

    # --- windows and episodes -------------------------------------------------------------
    async def episodes_holding(self, message_ids: list[str]) -> list[tuple[str, EpisodeStatus, int]]:
        """(key, status, how many of the messages it holds) of every episode holding one of them."""
        found = await self.runner.read("store/episodes_holding", message_ids=message_ids)
        return [(r["key"], EpisodeStatus(r["status"]), int(r["held"])) for r in found]

    async def buffered_messages(self) -> list[tuple[Message, User]]:
        return [rows.message_and_author(r) for r in await self.runner.read("store/buffered_messages")]

    async def messages_before(self, channel_id: str, before: datetime, limit: int) -> list[tuple[Message, User]]:
        """The channel's last `limit` messages before `before`, read span by span back in time (an hour, a
        day, 30 days, then the rest): the rows read follow the channel's recent traffic, not its history."""
        to = channel_time(channel_id, before)
        found: list[dict[str, Any]] = []
        for span in MESSAGES_BEFORE_SPANS:
            start = channel_time(channel_id, before - span) if span else channel_start(channel_id)
            found = await self.runner.read("store/messages_before", from_key=start, to_key=to, limit=limit)
            if len(found) >= limit:
                break
        return [rows.message_and_author(r) for r in found]

    async def some_channels(self, limit: int) -> list[tuple[str, str]]:
        """(guild id, channel id) of up to `limit` channels, no matter which (store/some_channels.cypher)."""
        return [(r["guild_id"], r["id"]) for r in await self.runner.read("store/some_channels", limit=limit)]

    async def close_episode(self, close: EpisodeClose) -> str:
        result = await self.runner.write_one(
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

    async def episode(self, key: str) -> Episode | None:
        found = await self.runner.read("store/episode_by_key", key=key)
        return rows.episode(found[0]) if found else None

    async def episodes(self, statuses: list[EpisodeStatus], guild_id: str | None = None, limit: int = 1000) -> list[Episode]:
        found = await self.runner.read(
            "store/episodes_by_status", statuses=[s.value for s in statuses], guild_id=guild_id, limit=limit
        )
        return [rows.episode(r) for r in found]

    async def episode_messages(self, key: str) -> list[tuple[Message, User]]:
        return [rows.message_and_author(r) for r in await self.runner.read("store/episode_messages", key=key)]

    async def mark_episode(
        self,
        key: str,
        status: EpisodeStatus,
        error: str | None = None,
        *,
        attempt: bool = False,
        tokens: tuple[int, int] = (0, 0),
    ) -> None:
        await self.runner.write_one(
            "store/mark_episode",
            key=key,
            status=status.value,
            error=error,
            attempt=1 if attempt else 0,
            now=iso(now_utc()),
            prompt_tokens=tokens[0],
            completion_tokens=tokens[1],
        )

    async def write_episode(self, episode: EpisodeWrite, now: datetime | None = None) -> WriteOutcome:
        """One extraction result in one transaction; a second write of the same key changes nothing."""
        at = iso(now or now_utc())

        async def work(tx: Tx) -> WriteOutcome:
            keys = {self.consent_key(i): i for i in {*optout_guard.episode_users(episode), *episode.people} if i}
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
            return await _write_body(tx, episode.guild_id, episode.key, optout_guard.allowed_episode(episode, out), at, finish)

        return await self.runner.write(work)

    async def write_command_facts(
        self, guild_id: str, facts: list[FactWrite], entities: EpisodeWrite | None = None
    ) -> WriteOutcome:
        """Facts stated to the bot directly ("remember ..."), with any new entities they need."""
        at = iso(now_utc())
        body = entities or EpisodeWrite(key="", guild_id=guild_id)
        body = body.model_copy(update={"facts": tuple(facts)})

        async def work(tx: Tx) -> WriteOutcome:
            out = await optout_guard.opted_out(tx, self.consent_key, optout_guard.episode_users(body))
            return await _write_body(tx, guild_id, None, optout_guard.allowed_episode(body, out), at)

        return await self.runner.write(work)

    # --- reads for extraction and the members' commands (a reply's: graph/reads/context.py) ---
    async def facts_about(
        self,
        guild_id: str,
        *,
        user_ids: Sequence[str] = (),
        entity_uuids: Sequence[str] = (),
        now: datetime | None = None,
        limit: int = 50,
        channel_id: str | None = None,
    ) -> list[FactView]:
        """With `channel_id`, only what may be recalled there (graph/channels.py); without, everything."""
        found = await self.runner.read(
            "store/facts_about",
            guild_id=guild_id,
            channel_id=channel_id,
            user_ids=list(user_ids),
            entity_uuids=list(entity_uuids),
            now=iso(now or now_utc()),
            limit=limit,
        )
        return sorted((rows.fact(r) for r in found), key=rows.importance_then_newest)

    async def facts_history(
        self,
        guild_id: str,
        *,
        user_ids: Sequence[str] = (),
        entity_uuids: Sequence[str] = (),
        at: datetime | None = None,
        history: bool = False,
        limit: int = 500,
    ) -> list[FactView]:
        found = await self.runner.read(
            "store/facts_about_history",
            guild_id=guild_id,
            user_ids=list(user_ids),
            entity_uuids=list(entity_uuids),
            at=iso(at),
            history=history,
            limit=limit,
        )
        return [rows.fact(r) for r in found]

    async def facts_by_uuid(self, guild_id: str, uuids: list[str]) -> list[FactView]:
        return [rows.fact(r) for r in await self.runner.read("store/facts_by_uuid", guild_id=guild_id, uuids=uuids)]

    async def search_entities(self, guild_id: str, text: str, limit: int = 20) -> list[EntityView]:
        query = lucene_query(text)
        if not query:
            return []
        return [
            rows.entity(r) for r in await self.runner.read("store/search_entities", guild_id=guild_id, query=query, limit=limit)
        ]

    async def entities_by_names(self, guild_id: str, names: list[str]) -> list[EntityView]:
        keys = sorted({name_key(n) for n in names if name_key(n)})
        found = await self.runner.read("store/entities_by_keys", guild_id=guild_id, keys=keys) if keys else []
        return [rows.entity(r) for r in found]

    async def members_by_name(self, guild_id: str, names: list[str], limit: int = 20) -> list[User]:
        lowered = sorted({n.casefold() for n in names if n})
        if not lowered:
            return []
        return [
            rows.user(r) for r in await self.runner.read("store/members_by_name", guild_id=guild_id, names=lowered, limit=limit)
        ]

    # --- what members take back ----------------------------------------------------------
    async def forgettable_facts(self, guild_id: str, user_id: str, channel_id: str | None = None) -> list[dict[str, Any]]:
        """The facts a member may forget in one guild (about them, or only they reported), with the
        entities each touches: rows of `uuid`, `text`, `entities`, and `shown`: whether it may be shown in
        `channel_id` (graph/scope.py; None: everywhere)."""
        return await self.runner.read("store/forgettable_facts", guild_id=guild_id, user_id=user_id, channel_id=channel_id)

    async def delete_facts(self, guild_id: str, uuids: list[str], touched_entities: list[str]) -> int:
        """Delete facts, then the entities they touched that nothing is about or links to any more."""

        async def work(tx: Tx) -> int:
            deleted = await run(tx, "store/delete_facts", uuids=uuids, guild_id=guild_id)
            await run(tx, "store/drop_orphan_entities", uuids=touched_entities, guild_id=guild_id)
            return int(deleted[0]["deleted"]) if deleted else 0

        return await self.runner.write(work)

    async def forget_user(
        self,
        user_id: str,
        guild_id: str | None = None,
        known_names: Sequence[str] = (),
        *,
        scope: NameScope | None = None,
        purge: bool = False,
        thorough_audit: bool = True,
    ) -> ForgetReport:
        """Forget-me (see `graph.privacy.deletion`): the member's subgraph, their DM space, and the residue audit (through
        the indexes; then of every property unless not `thorough_audit`). The engine's files are purged at once
        with `purge` (of an earlier erasure's too), else by the next upkeep pass (graph/privacy/purge.py)."""
        report = await forget_user(self.runner, user_id, guild_id, known_names, scope=scope, thorough_audit=thorough_audit)
        if purge:
            done = await self.purge_if_due()
            report.files_failed, report.files_seconds, report.files_purged = done.failed, done.seconds, True
        return report

    async def purge_due(self) -> purge.DuePurge:
        """Erasures waiting for the purge of the engine's files (`since` is None when none wait)."""
        return await purge.due(self.runner)

    async def purge_if_due(self) -> purge.DuePurge:
        """Purge the engine's files when an erasure waits for it (graph/privacy/purge.py); `since` is None when
        nothing was due."""
        due = await purge.due(self.runner)
        if due.since is None:
            return due
        started = datetime.now(UTC)
        due.failed = await self.purge_deleted()
        due.seconds = (datetime.now(UTC) - started).total_seconds()
        if not due.failed:
            await purge.clear(self.runner, due.erasures)
        return due

    async def drop_command_trace(self, user_id: str, message_id: str | None) -> bool:
        """After an opt-out said in a message: that message goes, and a member it was all we had of is
        forgotten entirely (their account, DM space and the engine's files). True when they were."""
        rows_ = await self.runner.write_one("store/drop_own_message", user_id=user_id, message_id=message_id or "")
        if rows_ and (rows_[0]["messages"] or rows_[0]["facts"]):
            return False
        report = await self.forget_user(user_id)
        return bool(report.deleted.get("User"))

    async def purge_deleted(self) -> dict[str, str]:
        """Rebuild what keeps deleted records on disk, then re-create any index a failed rebuild lost;
        returns the indexes not rebuilt, with why."""
        purge = await self.engine.purge_deleted()
        for statement in queries.statements(queries.load("schema/constraints")):
            await self.runner.statement(statement)
        return purge.failed

    # --- upkeep ---------------------------------------------------------------------------
    async def apply_retention(
        self, messages_days: int, closed_facts_days: int, now: datetime | None = None
    ) -> retention.RetentionReport:
        """Messages and closed facts older than their bounds leave the graph (graph/privacy/retention.py)."""
        return await retention.apply_retention(
            self.runner, messages_days=messages_days, closed_facts_days=closed_facts_days, now=utc(now or now_utc())
        )

    async def retire_expired(self, now: datetime | None = None) -> int:
        at = utc(now or now_utc())
        result = await self.runner.write_one("store/retire_expired", now=at, at=iso(at))
        return int(result[0]["retired"]) if result else 0

    async def enforce_user_cap(self, cap: int, now: datetime | None = None) -> int:
        """Retire what exceeds `cap` per member, reading only members given facts since the last pass."""
        return await user_cap.enforce(self.runner, cap, now or now_utc())

    # --- consent --------------------------------------------------------------------------
    def consent_key(self, user_id: str) -> str:
        """A keyed hash of a user id: remembers an opt-out without storing the id."""
        if self._salt is None:
            raise RuntimeError("setup_schema() first: the consent key needs the graph's salt")
        key = self._consent_keys.get(user_id)  # asked for every message recorded: kept, as the salt never changes
        if key is None:
            if len(self._consent_keys) >= CONSENT_KEYS_KEPT:
                self._consent_keys.clear()
            key = self._consent_keys[user_id] = hmac.new(self._salt.encode(), user_id.encode(), hashlib.sha256).hexdigest()
        return key

    async def opt_out(self, user_id: str) -> None:
        await self.runner.write_one("store/opt_out", key=self.consent_key(user_id), now=iso(now_utc()))

    async def opt_in(self, user_id: str) -> bool:
        result = await self.runner.write_one("store/opt_in", key=self.consent_key(user_id))
        return bool(result and result[0]["removed"])

    async def opted_out_keys(self) -> set[str]:
        return {r["key"] for r in await self.runner.read("store/opted_out")}

    async def llm_usage(self) -> list[dict[str, Any]]:
        """Per guild: windows extracted and the tokens their calls took (every attempt)."""
        return await self.runner.read("store/llm_usage")

    # --- stats ----------------------------------------------------------------------------
    async def owner_token(self) -> str | None:
        rows = await self.runner.read("schema/read_owner")
        return str(rows[0]["token"]) if rows else None

    async def set_owner_token(self, token: str) -> None:
        await self.runner.write_one("schema/write_owner", token=token)

    async def guild_counts(self, guild_id: str) -> dict[str, int]:
        """One guild's facts, entities, messages and episodes, counted through their guild_id indexes."""

        async def work(tx: Tx) -> dict[str, int]:
            counts = dict.fromkeys(("facts", "entities", "messages", "episodes"), 0)  # a label not yet made gives no row
            for statement in queries.statements(queries.load("store/guild_counts")):
                for row in await run_text(tx, statement, guild_id=guild_id):
                    counts[str(row["kind"])] = int(row["count"])
            return counts

        return await self.runner.read_tx(work)

    async def recent_activity(self, guild_id: str, days: int = 7, now: datetime | None = None) -> guild_activity.Activity:
        """What the guild recorded and learned in the last `days` (graph/reads/activity.py): range reads only."""
        return await guild_activity.recent_activity(self.runner, guild_id, now or now_utc(), days)

    async def stats(self) -> dict[str, Any]:
        nodes = await self.runner.read("store/stats_nodes")
        rels = await self.runner.read("store/stats_relationships")
        buffered = await self.runner.read("store/buffered_counts")
        return {"nodes": nodes, "relationships": rels, "buffered": buffered}


async def _write_body(
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
    if body.facts and key:  # new facts with all their edges in one statement (graph/writes/episode_rows.py)
        new_rows = episode_writes.new_fact_rows(body.facts)
        await run(tx, "store/write_episode_facts", facts=new_rows, guild_id=guild_id, key=key, now=at, finish=finish)
    elif finish is not None:
        await run(tx, "store/finish_episode", key=key, now=at, **finish)
    elif body.facts:
        facts = episode_writes.command_fact_rows(body.facts)
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
        for c in body.corroborations
    ]
    if reports:
        await run(tx, "store/write_reports", reports=reports, guild_id=guild_id)
    supersessions = [{"new_uuid": f.uuid, "old_uuid": old} for f in body.facts for old in f.supersedes]
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
