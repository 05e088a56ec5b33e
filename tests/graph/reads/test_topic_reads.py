"""Who-knows and a topic's timeline read through indexes, shown by ArcadeDB's own PROFILE of each part of the two
operator queries (ArcadeDB gives no plan for a UNION, so each part is profiled as the statement it is planned as):
every part starts from an index (full-text, or a member's or entity's key) and no step sees the busier guild's
records beside. graph/reads/topics.py runs the parts so, each a statement of its own."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from graph.reads.topics import parts
from graph.store import GraphStore
from tests.graph.reads.test_bounded_reads import BULK, profile_text
from tests.support.busy_server import G1, G2, PEOPLE
from tests.support.topics_graph import NOW, topical

pytestmark = pytest.mark.usefixtures("arcade_only")


@pytest.fixture
def arcade_only(request: pytest.FixtureRequest) -> None:
    if request.node.callspec.params.get("store") != "arcadedb":
        pytest.skip("PROFILE's plan text is ArcadeDB's")


async def _bulk_kubernetes(store: GraphStore) -> None:
    """BULK facts about G2's Kubernetes entity and messages of a closed window of G2, reported and said by Bob (a
    member of both guilds): what the indexes hold beside G1's few matches."""
    await store.driver.execute_query(
        "CREATE (:Entity {uuid: 'k8s-e', guild_id: $g, name: 'Kubernetes', name_key: 'kubernetes'})",
        {"g": G2},
        database_=store.engine.database,
    )
    statement = (
        "MATCH (u:User {id: $author}) "
        "CREATE (ep:Episode {key: 'k8s-ep', uuid: 'k8s-ep', guild_id: $g, status: 'done', "
        "started_at: datetime('2024-01-01T00:00:00Z'), ended_at: datetime('2024-01-01T00:00:00Z')}) "
        "WITH u, ep UNWIND range(1, $n) AS i "
        "CREATE (m:Message {id: 'k8s-m' + toString(i), guild_id: $g, channel_id: 'k8s-c', author_id: $author, "
        "content: 'kubernetes again ' + toString(i), created_at: datetime('2024-01-01T00:00:00Z')})-[:IN_EPISODE]->(ep) "
        "CREATE (u)-[:SENT]->(m) "
        "CREATE (f:Fact {uuid: 'k8s-f' + toString(i), guild_id: $g, text: 'kubernetes fact ' + toString(i), importance: 1, "
        "valid_at: datetime('2024-01-01T00:00:00Z')})-[:FROM]->(m) "
        "CREATE (f)-[:REPORTED_BY {message_id: m.id, at: m.created_at}]->(u) "
        "WITH f MATCH (e:Entity {uuid: 'k8s-e'}) CREATE (f)-[:ABOUT]->(e)"
    )
    await store.driver.execute_query(statement, {"n": BULK, "g": G2, "author": PEOPLE["bob"]}, database_=store.engine.database)


def _steps(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip().startswith("+ ")]


async def test_who_knows_reads_three_full_text_indexes_and_a_few_hops(store: GraphStore) -> None:
    await topical(store)
    await _bulk_kubernetes(store)
    hits = 20  # each index's best matches of G1 (its guild_term a required term): G2's BULK never read
    found = []
    for part in parts("operator/who_knows"):
        text, rows = await profile_text(store, part, guild_id=G1, topic="kubernetes", channel_id="", hits=hits)
        steps = _steps(text)
        assert any(s.startswith("+ CALL db.index.fulltext.queryNodes") for s in steps[:4]), text  # starts from the index
        assert "NodeByLabelScan" not in text and not re.search(r"(?<!Index)Scan\(", text), text
        assert max(rows) <= hits, text  # no step sees more than the index gave: never the guild's or G2's BULK
        found.append(text)
    assert len(found) == 3


async def test_a_timeline_starts_from_the_member_or_the_entity(store: GraphStore) -> None:
    await topical(store)
    await _bulk_kubernetes(store)
    user, entity = parts("operator/topic_timeline")
    for part, seek in ((user, "(s:User) [index: User[id]]"), (entity, "(s:Entity) [index: Entity[name_key]]")):
        for params in (
            {"user_id": PEOPLE["bob"], "entity_key": "kubernetes"},
            {"user_id": None, "entity_key": None},  # a part not asked for matches nothing, and scans nothing
        ):
            text, rows = await profile_text(
                store, part, guild_id=G1, at=NOW - timedelta(days=1), now=NOW, channel_id="", limit=100, **params
            )
            assert seek in text, text
            assert "NodeByLabelScan" not in text and not re.search(r"(?<!Index)Scan\(", text), text
            assert max(rows, default=0) <= 3, text  # Bob's two facts in G1; G2's Kubernetes left at the seek, its facts unread
