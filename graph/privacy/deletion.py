"""A forget's one write transaction: delete the member's subgraph, redact what names them, and audit through
the indexes (the driver is graph/privacy/forget.py; the thorough audit after it, graph/privacy/audit.py).

The deletion is one write transaction in which every statement starts from an index: the member's node
(its unique id), their edges, unique keys of what those edges lead to, and the full-text indexes for text
that names them: their id anywhere, their names only where they identify them (graph/privacy/guards/name_scope.py). Nothing in it reads a whole label. Inside it, an audit through the same indexes: what the member
waits for. The thorough audit (every property of every node and relationship) is a read after the commit, so it
never holds the write transaction."""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import queries
from common.text import redact, search_forms
from graph.models import dm_scope, iso
from graph.privacy.audit import Residue, entity_props
from graph.privacy.guards.name_scope import NameScope, name_scope
from graph.session import Tx, run, run_text
from graph.store import GraphStore
from graph.writes.message_deletes import delete_messages

_WORD = re.compile(r"\w+")
NAMED_LIMIT = 100_000  # full-text hits read per forget: far more texts than any member's name is in


@dataclass
class ForgetReport:
    user_id: str
    guild_id: str | None
    deleted: dict[str, int] = field(default_factory=dict)
    redacted: int = 0
    residue: list[Residue] = field(default_factory=list)
    files_failed: dict[str, str] = field(default_factory=dict)  # engine indexes the erasure did not reach
    files_seconds: float = 0.0  # the time the engine's files took (index rebuilds), when purged at once
    files_purged: bool = False  # False: the next upkeep pass purges them (graph/privacy/purge.py)
    seconds: float = 0.0  # the one write transaction (deletion, redaction, the index-driven audit)
    audit_seconds: float = 0.0  # the thorough audit afterwards (every property of every node), when run
    statements: int = 0  # statements run inside the transaction
    scope: NameScope | None = None  # where their names were looked for, and which
    indexed_residue: list[Residue] = field(default_factory=list)  # what the audit inside the transaction found
    indexed_audit_seconds: float = 0.0  # that audit's share of `seconds`
    thorough: bool = False  # whether `residue` is the thorough audit's (else the index-driven one's)

    @property
    def clean(self) -> bool:
        return not self.residue and not self.files_failed

    @property
    def names(self) -> list[str]:
        return self.scope.every_name() if self.scope else []


def named_query(scope: NameScope) -> str:
    """A full-text query for any word of the member's names, or their id (word characters only, so no
    syntax but the prefix star: the analyzers keep "charlie's" or "charlie.b" as one term), each name in every
    normal form a text may write it in ("Zoë" composed, and decomposed: "zoe" and a mark the index splits off)."""
    words = {w for n in search_forms(scope.every_name()) for w in _WORD.findall(n) if len(w) >= 2}
    terms = {f"{w}*" if len(w) >= 3 else w for w in words} | {f"{w}'s" for w in words if len(w) < 3}
    return " OR ".join(sorted(terms | {scope.user_id}))


class _Forget:
    """One forget-me inside one transaction; counts the statements it runs."""

    def __init__(self, tx: Tx, user_id: str, guild_id: str | None) -> None:
        self.tx, self.user_id, self.guild_id = tx, user_id, guild_id
        self.statements = 0
        self.scope = NameScope(user_id)

    async def run(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        self.statements += 1
        return await run(self.tx, name, **params)

    async def run_in(self, tx: Tx, name: str, /, **params: Any) -> list[dict[str, Any]]:
        return await self.run(name, **params)

    async def run_each(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = []
        for statement in queries.statements(queries.load(name)):
            self.statements += 1
            rows += await run_text(self.tx, statement, **params)
        return rows

    def in_scope(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Rows of the guild forgotten in (all of them, for a forget everywhere)."""
        return [r for r in rows if self.guild_id in (None, r["guild_id"])]

    async def facts(self, uuids: list[str]) -> dict[str, Any]:
        """Delete facts by uuid: how many, the entities they touched, the episodes they came from."""
        found = (await self.run("store/forget_facts", uuids=uuids))[0] if uuids else {}
        return {"facts": int(found.get("facts", 0)), "touched": found.get("touched", []), "episodes": found.get("episodes", [])}

    async def named(self) -> list[dict[str, Any]]:
        """Texts carrying their id anywhere, or one of their names in a guild where it identifies them."""
        rows = await self.run("store/forget_named", query=named_query(self.scope), limit=NAMED_LIMIT)
        return [r for r in rows if any(self.scope.names_it(t, r["guild_id"]) for t in (r["text"] or "", *r["aliases"]))]

    async def episode_texts(self, uuids: list[str]) -> list[tuple[str, str, str, str]]:
        """(uuid, guild id, property, text) of the given episodes' summaries and errors that name the member."""
        if not uuids:
            return []
        rows = self.in_scope(await self.run("store/forget_episode_texts", uuids=uuids))
        return [
            (r["key"], r["guild_id"], prop, r[prop])
            for r in rows
            for prop in ("summary", "error")
            if r[prop] and self.scope.names_it(r[prop], r["guild_id"])
        ]


async def delete_and_redact(
    store: GraphStore,
    user_id: str,
    guild_id: str | None = None,
    known_names: Sequence[str] = (),
    *,
    scope: NameScope | None = None,
) -> ForgetReport:
    """Delete the user's subgraph (in one guild, or everywhere, their DM space included) in one
    transaction, redact their id and names where those stand for them (`scope`, read before the request was
    kept; else read here), audit through the indexes. A forget run again after one that committed (the account
    gone) redacts and audits again."""

    async def work(tx: Tx) -> ForgetReport:
        f = _Forget(tx, user_id, guild_id)
        report = ForgetReport(user_id, guild_id)
        f.scope = scope if scope is not None else await name_scope(tx, user_id, guild_id, known_names, run=f.run_in)
        if guild_id is not None:
            f.scope = f.scope.only(guild_id)
        report.scope = f.scope
        dm = dm_scope(user_id)
        dm_space = (
            await f.run_each("store/forget_dm_space", guild_id=dm)
            if guild_id is None and await f.run("store/forget_dm_stored", guild_id=dm)
            else []
        )
        plan = (await f.run("store/forget_plan", user_id=user_id, guild_id=guild_id) or [{}])[0]
        # The account goes first (the plan already holds what goes): its edges then leave its edge list in one
        # pass rather than fact by fact.
        users = await f.run("store/forget_account", user_id=user_id, guild_id=guild_id)
        report.deleted["User"] = int(users[0]["users"]) if users else 0
        # Facts about or mentioning them, those only they reported, those about what only they own; and their
        # messages, first: the full-text lookup after them reads only the few texts left that name them.
        uuids = sorted({*plan.get("about", []), *plan.get("reported", []), *plan.get("owned_facts", [])})
        facts = await f.facts(uuids)
        ids = sorted(set(plan.get("messages", [])))
        if ids:  # what they told leaves the audience of the facts others told too, as a delete's (graph/privacy/erasure.py)
            await f.run("store/narrow_audience", ids=ids)
        report.deleted["Message"] = (await delete_messages(tx, ids)).messages
        f.statements += 2 if ids else 0
        held = sorted(set(plan.get("message_episodes", [])))
        episodes = (await f.run("store/forget_episodes", uuids=held, ids=ids, drop_summaries=True))[0] if held else {}
        report.deleted["Episode"] = int(episodes.get("episodes", 0))
        named = await f.named()
        named_facts = sorted({r["key"] for r in named if r["label"] == "Fact" and guild_id in (None, r["guild_id"])})
        more = await f.facts(named_facts)
        facts = {k: facts[k] + more[k] for k in facts}
        report.deleted["Fact"] = int(facts["facts"])
        told = sorted(set(facts["episodes"]) - set(held))  # conversations the deleted facts came from: about them too
        if told:
            await f.run("store/forget_episodes", uuids=told, ids=ids, drop_summaries=True)
        owned = sorted(set(plan.get("owned", [])))
        gone = (await f.run("store/forget_owned_entities", uuids=owned))[0] if owned else {}
        touched = sorted({*facts["touched"], *plan.get("related", [])} - set(owned))
        entities = (await f.run("store/forget_orphan_entities", uuids=touched))[0] if touched else {}
        report.deleted["Entity"] = int(entities.get("entities", 0)) + int(gone.get("entities", 0))
        for row in dm_space:
            report.deleted[row["label"]] = report.deleted.get(row["label"], 0) + int(row["deleted"])
        if guild_id is not None and not report.deleted["User"]:  # they stay elsewhere: their membership here goes
            await f.run("store/leave_guild", user_id=user_id, guild_id=guild_id)
        near = sorted({*held, *plan.get("took_part", []), *facts["episodes"]})
        left = [r for r in f.in_scope(named) if not (r["label"] == "Fact" and r["key"] in named_facts)]
        report.redacted = await _redact(f, near, left)
        started = time.perf_counter()
        report.residue = report.indexed_residue = await _indexed_audit(f, near)
        report.indexed_audit_seconds = time.perf_counter() - started
        if any(report.deleted.values()) or report.redacted:
            await f.run("store/purge_due_mark", now=iso(datetime.now(UTC)))  # graph/privacy/purge.py
        report.statements = f.statements
        return report

    started = time.perf_counter()
    report = await store.runner.write(work)
    report.seconds = time.perf_counter() - started
    return report


async def _redact(f: _Forget, episodes: list[str], named: list[dict[str, Any]]) -> int:
    """Redact the member's id and names where they survive: the texts the full-text lookup found (`named`,
    less the facts deleted since), and the summaries of the episodes near them; each with the names that stand
    for them in its guild."""
    rows: dict[str, list[dict[str, Any]]] = {"Fact": [], "Message": [], "Entity": [], "Episode": []}
    for row in named:
        needles = f.scope.needles(row["guild_id"])
        if row["label"] == "Entity":
            props = entity_props(row["text"], row["aliases"], needles)
        else:
            props = {"text" if row["label"] == "Fact" else "content": redact(row["text"] or "", needles)}
        rows[row["label"]].append({"key": row["key"], "props": props})
    by_episode: dict[str, dict[str, str]] = {}
    for uuid, guild, prop, text in await f.episode_texts(episodes):
        by_episode.setdefault(uuid, {})[prop] = redact(text, f.scope.needles(guild))
    rows["Episode"] = [{"key": k, "props": p} for k, p in by_episode.items()]
    redacted = 0
    for label, file in (("Fact", "facts"), ("Message", "messages"), ("Entity", "entities"), ("Episode", "episodes")):
        if rows[label]:
            done = await f.run(f"store/forget_redact_{file}", rows=rows[label])
            redacted += int(done[0]["redacted"]) if done else 0
    return redacted


async def _indexed_audit(f: _Forget, episodes: list[str]) -> list[Residue]:
    """Inside the transaction, through the same indexes: any text still naming the member."""
    residue = [Residue(r["label"], r["key"], "text", r["text"] or "") for r in f.in_scope(await f.named())]
    residue += [Residue("Episode", uuid, prop, text) for uuid, _, prop, text in await f.episode_texts(episodes)]
    if f.guild_id is not None:  # their account stays when they have traces elsewhere: none of its edges into the guild
        edges = await f.run("store/forget_guild_edges", user_id=f.user_id, guild_id=f.guild_id)
        residue += [Residue(r["type"], None, "edge", str(r["value"])) for r in edges]
    return residue
