"""Every read the explorer makes: the `queries/explore/*.cypher` files and the operator queries.

Reads go through `graph.reads.operator.read_rolled_back` on the read-only store (a READ session whose
transaction is rolled back whatever it did, since ArcadeDB does not enforce READ), and every statement is first
put through the CLI's own write refusal (`check_read_only`): the explore files once, when the
reader is made (`read_only_statements`), an operator query each time it runs, exactly as `grapevine query` does.
Every read takes the guild: nothing of another guild is read or shown.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

import queries
from common.text import lucene_query
from grapevine.explore.elements import Elements, node_element
from grapevine.explore.history import events_of
from graph.reads.operator import (
    OperatorQuery,
    check_read_only,
    coerce_params,
    list_queries,
    read_only_statements,
    read_rolled_back,
    run_operator_query,
)
from graph.reads.search_order import in_guild_order
from graph.store import GraphStore

EXPLORE_DIR = "explore"
AROUND = {
    "Fact": "around_fact",
    "User": "around_user",
    "Entity": "around_entity",
    "Episode": "around_episode",
    "Message": "around_message",
    "Channel": "around_channel",
    "Guild": "around_guild",
}
HISTORY = {"Fact": "fact_history", "User": "member_history"}
GUILD_NAMES = "store/users_by_id"  # members' names as the guild knows them (its nicknames), as the CLI shows them
MAX_LIMIT = 500
FACT_HITS_PER_RESULT = 5  # full-text matches of the guild read per fact kept


def clamp(limit: int, default: int = 25) -> int:
    return max(1, min(int(limit or default), MAX_LIMIT))


class ExploreReader:
    """The explorer's reads on one (read-only) store; `operator_dir` is where the operator queries are."""

    def __init__(self, store: GraphStore, operator_dir: Path | None = None) -> None:
        self.store = store
        self.operator_dir = operator_dir
        self.statements = read_only_statements(EXPLORE_DIR)
        self.statements[GUILD_NAMES] = queries.load(GUILD_NAMES)
        check_read_only(OperatorQuery(GUILD_NAMES, GUILD_NAMES, "", [], self.statements[GUILD_NAMES]))

    async def _read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        return await read_rolled_back(self.store, self.statements[name], params)

    async def guilds(self) -> list[dict[str, Any]]:
        return await self._read("guilds")

    async def start_points(self, guild_id: str, text: str, limit: int = 25) -> dict[str, list[dict[str, Any]]]:
        """Members, entities and channels whose name contains `text`, and facts matching its words."""
        limit = clamp(limit)
        [row] = await self._read("start_points", guild_id=guild_id, q=text.strip().casefold(), limit=limit)
        found = {kind: [node_element(n) for n in row[kind]] for kind in ("members", "entities", "channels")}
        words = lucene_query(text)
        hits = limit * FACT_HITS_PER_RESULT
        matched = await self._read("search_facts", guild_id=guild_id, query=words, limit=hits, hits=hits) if words else []
        facts = in_guild_order([node_element(r["fact"]) for r in matched], text, _fact_text, _key, limit)
        await self._guild_names(guild_id, found["members"])
        return found | {"facts": facts}

    async def _guild_names(self, guild_id: str, nodes: list[dict[str, Any]]) -> None:
        """Members drawn under the name they have in this guild (a User node holds only the account's name)."""
        users = [n for n in nodes if n["label"] == "User" and n["key"]]
        if not users:
            return
        rows = await self._read(GUILD_NAMES, ids=sorted({n["key"] for n in users}), guild_id=guild_id)
        names = {r["id"]: r["display_name"] for r in rows if r["display_name"]}
        for node in users:
            if node["key"] in names:
                node["props"] = {**node["props"], "display_name": names[node["key"]]}

    async def around(self, guild_id: str, label: str, key: str, limit: int = 25) -> dict[str, Any] | None:
        """One node and its neighbours by kind of link, or None when the guild holds no such node."""
        if label not in AROUND:
            raise ValueError(f"cannot expand a node labelled {label!r}; known: {', '.join(AROUND)}")
        rows = await self._read(AROUND[label], guild_id=guild_id, key=key, limit=clamp(limit))
        if not rows:
            return None
        row = rows[0]
        elements = Elements()
        [node_id], _ = elements.add(row["node"])
        groups = []
        for name, group in row.items():
            if name == "node":
                continue
            nodes, edges = elements.add(group["paths"])
            groups.append(
                {
                    "name": name,
                    "total": group["total"],
                    "shown": len(group["paths"]),
                    "nodes": sorted(set(nodes) - {node_id}),
                    "edges": sorted(set(edges)),
                }
            )
        graph = elements.as_json()
        await self._guild_names(guild_id, graph["nodes"])
        return {"node": elements.nodes[node_id], "groups": groups, "elements": graph}

    async def history(self, guild_id: str, label: str, key: str, limit: int = 200) -> dict[str, Any] | None:
        """A fact's chain of supersessions, or every fact about a member, with their change events."""
        if label not in HISTORY:
            raise ValueError(f"no history for a node labelled {label!r}; known: {', '.join(HISTORY)}")
        rows = await self._read(HISTORY[label], guild_id=guild_id, key=key, limit=clamp(limit, 200))
        if not rows:
            return None
        elements = Elements()
        [node_id], _ = elements.add(rows[0]["node"])
        elements.add([v for k, v in rows[0].items() if k != "node"])
        graph = elements.as_json()
        await self._guild_names(guild_id, graph["nodes"])
        return {"node": elements.nodes[node_id], "elements": graph, "events": events_of(graph)}

    async def time_bounds(self, guild_id: str) -> dict[str, dict[str, Any]]:
        """Per time axis ('valid', 'recorded'): the earliest and latest time (None when the guild has none)."""
        found = {
            row["axis"]: {"earliest": row["earliest"], "latest": row["latest"]}
            for row in await self._read("time_bounds", guild_id=guild_id)
        }
        return {axis: found.get(axis, {"earliest": None, "latest": None}) for axis in ("valid", "recorded")}

    def operator_queries(self) -> list[OperatorQuery]:
        return list_queries(self.operator_dir)

    def operator_query(self, name: str) -> OperatorQuery:
        found = {q.name: q for q in self.operator_queries()}
        if name not in found:
            raise KeyError(f"no operator query named {name!r}; known: {', '.join(sorted(found))}")
        return found[name]

    async def run_operator(self, name: str, raw: dict[str, str]) -> dict[str, Any]:
        """Rows of an operator query, its columns, and the nodes and relationships in them.

        Empty fields are parameters not given (a form sends every field). Raises KeyError for an
        unknown query, ValueError for bad parameters, ReadOnlyViolation (a ValueError) for a write.
        """
        query = self.operator_query(name)
        params = coerce_params(query, {k: v for k, v in raw.items() if v != ""})
        rows = await run_operator_query(self.store, query, params)
        elements = Elements()
        elements.add(rows)
        columns = list(rows[0]) if rows else []
        graph = elements.as_json()
        if isinstance(params.get("guild_id"), str):
            await self._guild_names(params["guild_id"], graph["nodes"])
        return {"name": name, "columns": columns, "rows": rows, "elements": graph}


def describe(query: OperatorQuery) -> dict[str, Any]:
    """An operator query for the page: name, title, what it answers, its parameters."""
    return {"name": query.name, "title": query.title, "answers": query.answers, "params": [asdict(p) for p in query.params]}


def _fact_text(element: dict[str, Any]) -> list[str]:
    return [str(element["props"].get("text") or "")]


def _key(element: dict[str, Any]) -> str:
    return str(element["key"] or element["id"])
