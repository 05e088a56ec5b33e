"""Operator queries (queries/operator/*.cypher): headers, parameters, and what each returns on a populated graph."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

import queries
from graph.models import EpisodeStatus
from graph.privacy.retention import retire_expired
from graph.reads.operator import (
    OperatorQuery,
    QueryHeaderError,
    QueryParam,
    ReadOnlyViolation,
    check_read_only,
    coerce_params,
    get_query,
    list_queries,
    parse_header,
    read_rolled_back,
    run_operator_query,
)
from graph.store import GraphStore
from graph.writes.episodes import mark_episode
from tests.support.busy_server import (
    G1,
    G2,
    GENERAL,
    MUNICH_AT,
    PEOPLE,
    T0,
    Populated,
    move_bob_to_munich,
    populate,
)

REQUIRED = {
    "who_reported",
    "who_knows_what",
    "superseded_recently",
    "most_connected_entities",
    "user_timeline",
    "single_source_facts",
    "corroborated_facts",
    "windows_by_status",
    "guild_overview",
    "who_knows_what_graph",
}


async def busy(store: GraphStore) -> Populated:
    """The populated guild, plus Bob's Berlin -> Munich supersession, a failed and a pending window."""
    p = await populate(store)
    assert (await move_bob_to_munich(p)).superseded == 1
    failed = await p.episode(
        GENERAL, [await p.say(GENERAL, "judy", "the LLM chokes on this one", MUNICH_AT + timedelta(hours=1))]
    )
    await mark_episode(store, failed, EpisodeStatus.FAILED, "extraction: invalid JSON", attempt=True)
    await p.episode(GENERAL, [await p.say(GENERAL, "oscar", "still waiting", MUNICH_AT + timedelta(hours=2))])
    return p


async def run(store: GraphStore, name: str, **raw: str) -> list[dict[str, Any]]:
    query = get_query(name)
    return await run_operator_query(store, query, coerce_params(query, raw))


# --- headers and parameters (no database) --------------------------------------------------------
def test_every_file_has_a_parsable_header() -> None:
    found = list_queries()
    names = {q.name for q in found}
    assert REQUIRED <= names
    assert names == {p.stem for p in (queries.ROOT / "operator").glob("*.cypher")} and len(found) == len(names)
    for q in found:
        assert q.title and q.answers and q.text.startswith("// title: ")
        assert q.params[0] == QueryParam("guild_id", "string", True, "the guild"), f"{q.name} is not scoped by guild_id"
        assert all(f"${p.name}" in q.text for p in q.params), f"{q.name} declares a parameter it does not use"
        assert not q.text.rstrip().endswith(";")
    who = get_query("who_reported")
    assert who.title == "Who reported facts about a user"
    assert who.answers == "For each fact about the user in the guild, who said it and when."
    assert [(p.name, p.type, p.required) for p in who.params] == [("guild_id", "string", True), ("user_id", "string", True)]
    assert [(p.name, p.type, p.required) for p in get_query("superseded_recently").params] == [
        ("guild_id", "string", True),
        ("since", "datetime", True),
        ("until", "datetime", False),
    ]


def test_malformed_headers_are_refused() -> None:
    with pytest.raises(QueryHeaderError, match="lacks `// answers:`"):
        parse_header("x", "// title: T\n// params: none\nRETURN 1")
    with pytest.raises(QueryHeaderError, match="cannot read parameter"):
        parse_header("x", "// title: T\n// answers: A\n// params: guild_id string\nRETURN 1")
    with pytest.raises(QueryHeaderError, match="not one of"):
        parse_header("x", "// title: T\n// answers: A\n// params: n (number, required) - n\nRETURN 1")
    assert parse_header("x", "// title: T\n// answers: A\n// params: none\nRETURN 1").params == []


def test_unknown_query_name_lists_the_known_ones() -> None:
    with pytest.raises(KeyError, match="no operator query named 'nope'.*who_reported"):
        get_query("nope")


def test_coerce_params_types_and_errors() -> None:
    q = get_query("superseded_recently")
    assert coerce_params(q, {"guild_id": G1, "since": "2024-05-10T12:00:00Z"}) == {
        "guild_id": G1,
        "since": datetime(2024, 5, 10, 12, tzinfo=UTC),
        "until": None,
    }
    got = coerce_params(q, {"guild_id": G1, "since": " 2024-05-10T14:00:00+02:00 ", "until": "2024-05-11T12:00"})
    assert got["since"] == datetime(2024, 5, 10, 12, tzinfo=UTC) and got["until"] == datetime(2024, 5, 11, 12, tzinfo=UTC)
    assert got["since"].tzinfo is UTC  # a native datetime, in UTC: what an index range of ArcadeDB needs
    with pytest.raises(ValueError, match="parameter since .*required"):
        coerce_params(q, {"guild_id": G1})
    with pytest.raises(ValueError, match="parameter since must be datetime, got 'soon'"):
        coerce_params(q, {"guild_id": G1, "since": "soon"})
    with pytest.raises(ValueError, match="parameter until must be datetime"):
        coerce_params(q, {"guild_id": G1, "since": "2024-05-10", "until": "yesterday"})
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) user; known parameters: guild_id, since, until"):
        coerce_params(q, {"guild_id": G1, "since": "2024-05-10", "user": "x"})
    marked = get_query("closed_facts_marked")
    with pytest.raises(ValueError, match="parameter limit must be int, got 'soon'"):
        coerce_params(marked, {"guild_id": G1, "since": "2024-05-10", "limit": "soon"})
    single = get_query("single_source_facts")
    assert coerce_params(single, {"guild_id": G1, "include_closed": "yes"})["include_closed"] is True
    assert coerce_params(single, {"guild_id": G1, "include_closed": "False"})["include_closed"] is False
    with pytest.raises(ValueError, match="include_closed must be bool"):
        coerce_params(single, {"guild_id": G1, "include_closed": "maybe"})
    fq = OperatorQuery("f", "F", "A", [QueryParam("x", "float", True)], "RETURN $x AS x")
    assert coerce_params(fq, {"x": "0.5"}) == {"x": 0.5}


def test_write_clauses_are_refused_before_sending() -> None:
    for q in list_queries():
        check_read_only(q)  # every shipped query is read-only
    evil = OperatorQuery("evil", "E", "A", [], "// a comment may say CREATE\nMATCH (f:Fact) SET f.text = 'x' RETURN f")
    with pytest.raises(ReadOnlyViolation, match="SET"):
        check_read_only(evil)


# --- on a database --------------------------------------------------------------------------------
async def test_a_write_query_is_refused_and_writes_nothing(store: GraphStore) -> None:
    await populate(store)
    create = OperatorQuery(
        "evil",
        "Evil",
        "Writes",
        [QueryParam("guild_id", "string", True)],
        "CREATE (f:Fact {uuid: 'evil', guild_id: $guild_id, text: 'planted'}) RETURN f.uuid AS uuid",
    )
    with pytest.raises(ReadOnlyViolation, match="CREATE"):
        await run_operator_query(store, create, {"guild_id": G1})
    # Past the pre-check, the READ transaction itself: refused (Neo4j) or rolled back (ArcadeDB).
    try:
        await read_rolled_back(store, create.text, {"guild_id": G1})
    except Exception:  # noqa: BLE001 - Neo4j refuses writes in a READ session
        pass
    records, _, _ = await store.driver.execute_query(
        "MATCH (f:Fact {uuid: 'evil'}) RETURN count(f) AS n", database_=store.engine.database
    )
    assert records[0]["n"] == 0


async def test_who_reported_frank_is_eve_and_grace(store: GraphStore) -> None:
    p = await busy(store)
    rows = await run(store, "who_reported", guild_id=G1, user_id=PEOPLE["frank"])
    assert [(r["fact_uuid"], r["reporter"], r["state"]) for r in rows] == [
        (p.facts["frank_engaged"], "Eve", "valid"),
        (p.facts["frank_engaged"], "Grace", "valid"),
    ]
    assert rows[0]["reported_at"].startswith("2024-05-04T18:00:00")
    assert rows[0]["message_id"] == next(m.id for m in p.messages if m.content.startswith("Frank got engaged"))
    bob = await run(store, "who_reported", guild_id=G1, user_id=PEOPLE["bob"])
    assert [(r["fact"], r["state"]) for r in bob] == [("Bob moved to Munich", "valid"), ("Bob lives in Berlin", "closed")]
    assert await run(store, "who_reported", guild_id=G2, user_id=PEOPLE["frank"]) == []


async def test_who_knows_what_lists_people_present(store: GraphStore) -> None:
    p = await busy(store)
    rows = await run(store, "who_knows_what", guild_id=G1, fact_uuid=p.facts["frank_engaged"])
    present = {r["user"]: r for r in rows}
    assert set(present) == {"Eve", "Grace", "Bob"}  # Frank was not there
    assert present["Grace"]["episodes"] == 2  # the telling and her corroboration later
    assert present["Eve"]["first_present_at"].startswith("2024-05-04T18:00:00")
    alice = await run(store, "who_knows_what", guild_id=G1, user_id=PEOPLE["alice"])
    assert {(r["fact"], r["user"]) for r in alice} == {
        ("Alice is moving to Austin next month", "Alice"),
        ("Alice is moving to Austin next month", "Bob"),
        ("Alice is moving to Austin next month", "Charlie"),
        ("Alice adopted a cat named Luna", "Alice"),
        ("Alice adopted a cat named Luna", "Bob"),
        ("Alice adopted a cat named Luna", "Charlie"),
    }
    everything = await run(store, "who_knows_what", guild_id=G1)
    assert {r["fact_uuid"] for r in everything} >= {p.facts["frank_engaged"], p.facts["alice_luna"], p.facts["bob_munich"]}
    assert "Alice is vegetarian" not in {r["fact"] for r in everything}


async def test_who_knows_what_graph_returns_paths(store: GraphStore) -> None:
    p = await busy(store)
    [row] = await run(store, "who_knows_what_graph", guild_id=G1, fact_uuid=p.facts["frank_engaged"])
    assert row["fact"]["_labels"] == ["Fact"] and row["fact"]["text"] == "Frank got engaged to Heather"
    people = set()
    for path in row["present"]:
        assert [n["_labels"][0] for n in path["nodes"]] == ["Fact", "Episode", "User"]
        assert [r["_type"] for r in path["relationships"]] == ["EXTRACTED_FROM", "TOOK_PART_IN"]
        people.add(path["nodes"][2]["display_name"])
    assert people == {"Eve", "Grace", "Bob"} and len(row["present"]) == 4  # Grace: the telling and her corroboration
    assert [(a["relationships"][0]["_type"], a["nodes"][1]["display_name"]) for a in row["about"]] == [("ABOUT", "Frank")]
    assert sorted(r["nodes"][1]["display_name"] for r in row["reported"]) == ["Eve", "Grace"]
    assert all(r["relationships"][0]["_type"] == "REPORTED_BY" for r in row["reported"])
    bob = await run(store, "who_knows_what_graph", guild_id=G1, user_id=PEOPLE["bob"])
    assert sorted((r["fact"]["text"], r["fact"]["_labels"] == ["Closed", "Fact"]) for r in bob) == [
        ("Bob lives in Berlin", True),
        ("Bob moved to Munich", False),
    ]
    assert len(await run(store, "who_knows_what_graph", guild_id=G1, limit="3")) == 3


async def test_superseded_recently_finds_berlin_to_munich(store: GraphStore) -> None:
    p = await busy(store)
    week_ago = (datetime.now(UTC) - timedelta(days=7)).isoformat()  # supersessions are stamped with the time written
    rows = await run(store, "superseded_recently", guild_id=G1, since=week_ago)
    assert [(r["old_fact"], r["new_fact"]) for r in rows] == [("Bob lives in Berlin", "Bob moved to Munich")]
    assert rows[0]["new_uuid"] == p.facts["bob_munich"]
    assert rows[0]["old_invalid_at"].startswith("2024-05-06T18:00:00")
    assert await run(store, "superseded_recently", guild_id=G1, since="2023-12-25T00:00:00Z", until="2024-01-01T00:00:00Z") == []
    assert await run(store, "superseded_recently", guild_id=G1, since=(datetime.now(UTC) + timedelta(days=1)).isoformat()) == []
    assert await run(store, "superseded_recently", guild_id=G2, since=week_ago) == []


async def test_most_connected_entities_ranks_austin_first(store: GraphStore) -> None:
    await busy(store)
    rows = await run(store, "most_connected_entities", guild_id=G1)
    assert rows[0]["name"] == "Austin" and rows[0]["mentioning_facts"] == 2 and rows[0]["facts"] == 2
    by_name = {r["name"]: r for r in rows}
    assert set(by_name) == {"Austin", "Charlie's sister", "Luna", "Celtics", "Heather"}
    assert (by_name["Charlie's sister"]["about_facts"], by_name["Charlie's sister"]["relations"]) == (1, 1)
    assert [r["name"] for r in await run(store, "most_connected_entities", guild_id=G1, limit="1")] == ["Austin"]


async def test_user_timeline_interleaves_facts_and_episodes(store: GraphStore) -> None:
    p = await busy(store)
    rows = await run(store, "user_timeline", guild_id=G1, user_id=PEOPLE["alice"])
    assert [(r["kind"], r["ref"]) for r in rows] == [
        ("episode", p.episodes[0]),
        ("episode", p.episodes[1]),
        ("fact", p.facts["alice_luna"]),
        ("fact", p.facts["alice_austin"]),
    ]
    assert [r["at"] for r in rows] == sorted(r["at"] for r in rows)
    assert rows[0]["what"].startswith("Alice is moving to Austin") and rows[0]["state"] == "done"
    assert all(r["state"] == "valid" for r in rows if r["kind"] == "fact")
    bob = await run(store, "user_timeline", guild_id=G1, user_id=PEOPLE["bob"])
    assert ("Bob lives in Berlin", "closed") in {(r["what"], r["state"]) for r in bob}
    assert [r["what"] for r in await run(store, "user_timeline", guild_id=G2, user_id=PEOPLE["alice"])] == [
        "Alice is vegetarian.",
        "Alice is vegetarian",
    ]


async def test_single_source_and_corroborated_facts(store: GraphStore) -> None:
    p = await busy(store)
    now = (T0 + timedelta(days=2, hours=2)).isoformat()
    corroborated = await run(store, "corroborated_facts", guild_id=G1, now=now)
    assert [(r["fact_uuid"], r["reporter_count"], sorted(r["reporters"]), r["about"]) for r in corroborated] == [
        (p.facts["frank_engaged"], 2, ["Eve", "Grace"], ["Frank"])
    ]
    single = await run(store, "single_source_facts", guild_id=G1, now=now)
    texts = {r["fact"] for r in single}
    assert p.facts["frank_engaged"] not in {r["fact_uuid"] for r in single}
    assert {"Dave is celebrating tonight", "Bob moved to Munich", "Charlie's sister lives in Austin"} <= texts
    assert "Bob lives in Berlin" not in texts and "Alice is vegetarian" not in texts
    assert all(r["reporter_count"] == 1 and len(r["reporters"]) == 1 for r in single)
    assert [r["importance"] for r in single] == sorted((r["importance"] for r in single), reverse=True)
    later = await run(store, "single_source_facts", guild_id=G1, now=(T0 + timedelta(days=4)).isoformat())
    assert "Dave is celebrating tonight" not in {r["fact"] for r in later}  # past its expiry
    closed = await run(store, "single_source_facts", guild_id=G1, include_closed="true")
    assert {"Bob lives in Berlin", "Dave is celebrating tonight"} <= {r["fact"] for r in closed}


async def test_windows_by_status_shows_pending_and_failed(store: GraphStore) -> None:
    p = await busy(store)
    rows = await run(store, "windows_by_status", guild_id=G1)
    assert [(r["status"], r["key"]) for r in rows] == [("failed", p.episodes[-2]), ("pending", p.episodes[-1])]
    failed = rows[0]
    assert (failed["attempts"], failed["error"], failed["channel"], failed["message_count"]) == (
        1,
        "extraction: invalid JSON",
        "general",
        1,
    )
    assert failed["started_at"].startswith("2024-05-13T19:00:00")
    assert [r["key"] for r in await run(store, "windows_by_status", guild_id=G1, status="failed")] == [p.episodes[-2]]
    assert len(await run(store, "windows_by_status", guild_id=G1, status="done")) == 7
    assert await run(store, "windows_by_status", guild_id=G2) == []


async def test_guild_overview_counts(store: GraphStore) -> None:
    await busy(store)
    [row] = await run(store, "guild_overview", guild_id=G1, now=(T0 + timedelta(days=20)).isoformat())
    assert row == {
        "guild_id": G1,
        "guild": "Book Club",
        "channels": 2,
        "users_who_wrote": 11,
        "messages": 24,
        "facts_valid": 27,
        "facts": 29,
        "entities": 5,
        "episodes_pending": 1,
        "episodes_done": 7,
        "episodes_failed": 1,
        "episodes_skipped": 0,
    }
    [other] = await run(store, "guild_overview", guild_id=G2)
    assert (other["guild"], other["messages"], other["facts"], other["users_who_wrote"]) == ("Climbing Gym", 2, 1, 2)
    assert await run(store, "guild_overview", guild_id="900000000000000009") == []


async def test_closed_facts_marked(store: GraphStore) -> None:
    p = await busy(store)
    rows = await run(store, "closed_facts_marked", guild_id=G1, since=(datetime.now(UTC) - timedelta(days=7)).isoformat())
    assert [(r["mark"]["text"], r["mark"]["reason"], r["mark"]["replaced_by"]) for r in rows] == [
        ("Bob lives in Berlin", "superseded", "Bob moved to Munich")
    ]
    assert "Closed" in rows[0]["fact"]["_labels"]
    assert [r["_type"] for r in rows[0]["replaced"]["relationships"]] == ["SUPERSEDES"]
    assert rows[0]["replaced"]["nodes"][0]["uuid"] == p.facts["bob_munich"]
    retired_at = T0 + timedelta(days=4)
    assert await retire_expired(store, retired_at) == 1  # dave's fact that expired two days in
    both = await run(store, "closed_facts_marked", guild_id=G1, since=(T0 - timedelta(days=1)).isoformat())
    assert [(r["mark"]["reason"], r["mark"]["replaced_by"], r["replaced"]) for r in both][1:] == [("expired", None, None)]
    assert [r["mark"]["text"] for r in both][0] == "Bob lives in Berlin"  # latest closed first
    assert [r["fact"]["uuid"] for r in both][1] == p.facts["dave_drunk"]
    between = await run(
        store,
        "closed_facts_marked",
        guild_id=G1,
        since=(T0 + timedelta(days=3)).isoformat(),
        until=(T0 + timedelta(days=5)).isoformat(),
    )
    assert [r["mark"]["reason"] for r in between] == ["expired"]
    assert await run(store, "closed_facts_marked", guild_id=G2, since=(T0 - timedelta(days=1)).isoformat()) == []
