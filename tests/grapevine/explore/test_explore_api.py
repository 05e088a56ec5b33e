"""The explorer's JSON API on a populated graph (each engine the `store` fixture gives): start
points, neighbours, history, time bounds, operator queries and their write refusal, guild scoping,
and a forgotten member gone from every answer."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import queries
from grapevine.explore.app import GONE, create_app
from grapevine.explore.reads import ExploreReader
from grapevine.explore.style import style_rules
from graph.privacy.forget import forget_user
from graph.reads.operator import check_read_only, coerce_params, get_query, list_queries, run_operator_query
from graph.store import GraphStore
from tests.grapevine.explore.conftest import MARKUP_NAME, TOKEN, explore_graph
from tests.support.busy_server import G1, G2, PEOPLE, Populated

COURTESY = "a courtesy check: they run as a user the engine holds to reading"
EVIL = (
    "// title: Plant a fact\n// answers: Nothing: it writes.\n// params: guild_id (string, required) - the guild\n"
    "CREATE (f:Fact {uuid: 'evil', guild_id: $guild_id, text: 'planted'}) RETURN f.uuid AS uuid\n"
)


class Api:
    """The app behind its gate, called as the page calls it."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client

    async def get(self, path: str, status: int = 200, **params: Any) -> Any:
        response = await self.client.get(f"/{TOKEN}/api/{path}", params=params)
        assert response.status_code == status, response.text
        return response.json()


@pytest.fixture
async def busy(store: GraphStore) -> Populated:
    return await explore_graph(store)


@pytest.fixture
async def api(store: GraphStore, busy: Populated, tmp_path: Path) -> AsyncIterator[Api]:
    operator_dir = tmp_path / "operator"
    shutil.copytree(queries.ROOT / "operator", operator_dir)
    (operator_dir / "evil_plant.cypher").write_text(EVIL, encoding="utf-8")
    reader = ExploreReader(store, operator_dir)
    app = create_app(reader, TOKEN, style=style_rules())
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:8474") as client:
        yield Api(client)


def captions(nodes: list[dict[str, Any]]) -> list[str]:
    return [n["props"].get("display_name") or n["props"].get("text") or n["props"].get("name") for n in nodes]


async def test_guilds_style_and_time_bounds(api: Api) -> None:
    assert [(g["name"], g["facts"]) for g in await api.get("guilds")] == [("Book Club", 30), ("Climbing Gym", 1)]
    assert (await api.get("style"))[0] == {
        "selector": "node",
        "properties": {
            "diameter": "50px",
            "color": "#A5ABB6",
            "border-color": "#9AA1AC",
            "border-width": "2px",
            "text-color-internal": "#FFFFFF",
            "font-size": "10px",
        },
    }
    bounds = await api.get("bounds", guild_id=G1)
    assert bounds["valid"]["earliest"].startswith("2024-05-03T18:00:00")
    assert bounds["valid"]["latest"].startswith("2024-06-02T18:00:00")  # Alice moves to Austin a month on
    assert bounds["recorded"]["earliest"] and bounds["recorded"]["latest"] >= bounds["recorded"]["earliest"]
    assert await api.get("bounds", guild_id="900000000000000009") == {  # a guild it does not hold
        "valid": {"earliest": None, "latest": None},
        "recorded": {"earliest": None, "latest": None},
    }


async def test_start_points_by_name_and_facts_by_words(api: Api) -> None:
    everything = await api.get("start", guild_id=G1)
    assert "Bob" in captions(everything["members"]) and "Frank" in captions(everything["members"])  # Frank never wrote
    assert captions(everything["channels"]) == ["general", "weekend plans"]
    assert captions(everything["entities"]) == ["Austin", "Celtics", "Charlie's sister", "Heather", "Luna"]
    bob = await api.get("start", guild_id=G1, q="BO")
    assert captions(bob["members"]) == ["Bob"] and captions(bob["entities"]) == ["Celtics"]  # alias Boston Celtics
    assert bob["members"][0] | {"id": "x"} == {
        "id": "x",
        "labels": ["User"],
        "label": "User",
        "key": PEOPLE["bob"],
        "props": bob["members"][0]["props"],
    }
    berlin = await api.get("start", guild_id=G1, q="berlin")
    assert captions(berlin["facts"]) == ["Bob lives in Berlin"]
    vegetarian = await api.get("start", guild_id=G1, q="vegetarian")  # Alice's fact of the other guild
    assert vegetarian["facts"] == [] and (await api.get("start", guild_id=G2, q="vegetarian"))["facts"]
    assert captions((await api.get("start", guild_id=G1, q="<img"))["members"]) == [MARKUP_NAME]


async def test_around_a_fact_shows_its_provenance(api: Api, busy: Populated) -> None:
    found = await api.get("around", guild_id=G1, label="Fact", key=busy.facts["bob_berlin"])
    assert found["node"]["labels"] == ["Closed", "Fact"] and found["node"]["props"]["text"] == "Bob lives in Berlin"
    nodes = {n["id"]: n for n in found["elements"]["nodes"]}
    groups = {g["name"]: (g["total"], sorted(captions([nodes[i] for i in g["nodes"]]))) for g in found["groups"]}
    assert groups == {
        "about": (1, ["Bob"]),
        "reported_by": (1, ["Bob"]),
        "mentions": (0, []),
        "messages": (1, [None]),
        "episodes": (1, [None]),
        "supersedes": (0, []),
        "superseded_by": (1, ["Bob moved to Munich"]),
    }
    message = next(n for n in nodes.values() if n["label"] == "Message")
    assert message["props"]["content"] == "I live in Berlin btw"
    [report] = [e for e in found["elements"]["edges"] if e["type"] == "REPORTED_BY"]
    assert report["props"]["at"].startswith("2024-05-04T18:01:00") and report["props"]["message_id"] == message["key"]
    frank = await api.get("around", guild_id=G1, label="Fact", key=busy.facts["frank_engaged"])
    reporters = next(g for g in frank["groups"] if g["name"] == "reported_by")
    assert reporters["total"] == 2


async def test_around_a_member_is_scoped_to_the_guild(api: Api, busy: Populated) -> None:
    alice = await api.get("around", guild_id=G1, label="User", key=PEOPLE["alice"])
    nodes = {n["id"]: n for n in alice["elements"]["nodes"]}
    about = next(g for g in alice["groups"] if g["name"] == "facts_about")
    assert sorted(captions([nodes[i] for i in about["nodes"]])) == [
        "Alice adopted a cat named Luna",
        "Alice is moving to Austin next month",
    ]
    assert "Alice is vegetarian" not in str(alice)
    assert (await api.get("around", guild_id=G1, label="Fact", key=busy.facts["alice_veg"], status=404)) == {"error": GONE}
    assert (await api.get("around", guild_id=G2, label="User", key=PEOPLE["frank"], status=404)) == {"error": GONE}
    limited = await api.get("around", guild_id=G1, label="Channel", key=busy.messages[0].channel_id, limit=2)
    episodes = next(g for g in limited["groups"] if g["name"] == "episodes")
    assert (episodes["shown"], episodes["total"]) == (2, 7)
    assert (await api.get("around", guild_id=G1, label="Nope", key="x", status=400))["error"].startswith("cannot expand")
    assert (await api.get("around", guild_id=G1, label="User", status=400)) == {"error": "the parameter key is required"}


async def test_history_of_a_fact_and_of_a_member(api: Api, busy: Populated) -> None:
    berlin = await api.get("history", guild_id=G1, label="Fact", key=busy.facts["bob_berlin"])
    assert sorted(captions(berlin["elements"]["nodes"])) == ["Bob lives in Berlin", "Bob moved to Munich"]
    bob = await api.get("history", guild_id=G1, label="User", key=PEOPLE["bob"])
    valid = [(e["kind"], e["text"], e["detail"]) for e in bob["events"] if e["axis"] == "valid"]
    assert valid == [
        ("holds", "Bob lives in Berlin", ""),
        ("holds", "Bob moved to Munich", ""),
        ("ends", "Bob lives in Berlin", "replaced by: Bob moved to Munich"),
    ]
    assert [e["kind"] for e in bob["events"] if e["axis"] == "recorded"] == ["recorded", "recorded", "closed"]
    await api.get("history", guild_id=G1, label="Entity", key="x", status=400)


async def test_operator_queries_run_as_the_cli_runs_them(api: Api, store: GraphStore) -> None:
    listed = await api.get("queries")
    assert [q["name"] for q in listed] == sorted([q.name for q in list_queries()] + ["evil_plant"])
    who = next(q for q in listed if q["name"] == "who_reported")
    assert who["params"][1] == {"name": "user_id", "type": "string", "required": True, "description": "the Discord user id"}
    page = await api.get("queries/who_reported", guild_id=G1, user_id=PEOPLE["frank"])
    query = get_query("who_reported")
    cli = await run_operator_query(store, query, coerce_params(query, {"guild_id": G1, "user_id": PEOPLE["frank"]}))
    assert page["rows"] == cli and page["columns"] == list(cli[0]) and page["elements"] == {"nodes": [], "edges": []}
    graph = await api.get("queries/who_knows_what_graph", guild_id=G1, user_id=PEOPLE["frank"], fact_uuid="", limit="")
    assert sorted(captions([n for n in graph["elements"]["nodes"] if n["label"] == "User"])) == ["Bob", "Eve", "Frank", "Grace"]
    assert {e["type"] for e in graph["elements"]["edges"]} == {"EXTRACTED_FROM", "TOOK_PART_IN", "ABOUT", "REPORTED_BY"}
    bad = await api.get("queries/superseded_recently", guild_id=G1, since="soon", status=400)
    with pytest.raises(ValueError, match="superseded_recently: parameter since") as cli_error:
        coerce_params(get_query("superseded_recently"), {"guild_id": G1, "since": "soon"})
    assert bad == {"error": str(cli_error.value)}
    assert (await api.get("queries/nope", guild_id=G1, status=404))["error"].startswith("no operator query named 'nope'")


async def test_a_write_is_refused_with_the_cli_message_and_writes_nothing(api: Api, store: GraphStore, tmp_path: Path) -> None:
    refused = await api.get("queries/evil_plant", guild_id=G1, status=400)
    [evil] = [q for q in list_queries(tmp_path / "operator") if q.name == "evil_plant"]
    with pytest.raises(ValueError, match="read-only") as cli_error:
        check_read_only(evil)  # what `grapevine query` raises and prints
    assert (
        refused
        == {"error": str(cli_error.value)}
        == {"error": f"evil_plant: operator queries are read-only, and this one has CREATE ({COURTESY})"}
    )
    records, _, _ = await store.driver.execute_query(
        "MATCH (f:Fact {uuid: 'evil'}) RETURN count(f) AS n", database_=store.engine.database
    )
    assert records[0]["n"] == 0


async def test_only_get_is_answered(api: Api) -> None:
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        response = await api.client.request(method, f"/{TOKEN}/api/queries/who_reported", params={"guild_id": G1})
        assert response.status_code == 405, method


async def test_a_forgotten_member_is_gone(api: Api, store: GraphStore, busy: Populated) -> None:
    assert (await api.get("around", guild_id=G1, label="User", key=PEOPLE["alice"]))["node"]["key"] == PEOPLE["alice"]
    report = await forget_user(store, PEOPLE["alice"])
    assert not report.residue
    assert (await api.get("around", guild_id=G1, label="User", key=PEOPLE["alice"], status=404)) == {"error": GONE}
    assert (await api.get("history", guild_id=G1, label="User", key=PEOPLE["alice"], status=404)) == {"error": GONE}
    assert (await api.get("around", guild_id=G1, label="Fact", key=busy.facts["alice_luna"], status=404)) == {"error": GONE}
    start = await api.get("start", guild_id=G1, q="alice")
    assert start == {"members": [], "entities": [], "channels": [], "facts": []}
    everything = str(
        [
            await api.get("start", guild_id=G1),
            await api.get("queries/who_knows_what", guild_id=G1),
            await api.get("queries/user_timeline", guild_id=G1, user_id=PEOPLE["alice"]),
        ]
    )
    assert PEOPLE["alice"] not in everything and "Alice" not in everything
