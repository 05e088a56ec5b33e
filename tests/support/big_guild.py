"""A busy guild written in bulk (UNWIND batches), beside the guilds a test is about: every message, fact and
entity of it holds the words `WORDS`, so every full-text index has thousands of its matches for any of them."""

from __future__ import annotations

from graph.store import GraphStore

BIG_GUILD = "900000000000000009"
BIG_CHANNEL = "910000000000000009"
BIG_AUTHORS = 50
WORDS = "berlin munich ines trail van miso hike saturday july hospital ridge carpool kubernetes"
BATCH = 5000


async def add_big_guild(store: GraphStore, messages: int = 20_000, entities: int = 2_000) -> None:
    """`messages` messages of one closed window of BIG_GUILD (by BIG_AUTHORS members), a fact drawn from each,
    reported by its author and about one of `entities` entities named with WORDS."""
    db = store.engine.database
    run = store.driver.execute_query
    await run(
        "MERGE (g:Guild {id: $g}) SET g.name = 'big' "
        "MERGE (c:Channel {id: $c}) SET c.guild_id = $g, c.name = 'big', c.mode = 'shared', c.kind = 'text' "
        "WITH g UNWIND range(1, $n) AS i "
        "MERGE (u:User {id: '95000000000000' + toString(1000 + i)}) SET u.name = 'big' + toString(i), u.is_bot = false "
        "MERGE (u)-[:MEMBER_OF]->(g)",
        {"g": BIG_GUILD, "c": BIG_CHANNEL, "n": BIG_AUTHORS},
        database_=db,
    )
    await run(
        "CREATE (:Episode {key: 'big-ep', uuid: 'big-ep', guild_id: $g, channel_id: $c, status: 'done', "
        "started_at: datetime('2024-01-01T00:00:00Z'), ended_at: datetime('2024-01-01T00:00:00Z')})",
        {"g": BIG_GUILD, "c": BIG_CHANNEL},
        database_=db,
    )
    for start in range(0, entities, BATCH):
        await run(
            "UNWIND range($start, $end - 1) AS i "
            "CREATE (:Entity {uuid: 'big-e' + toString(i), guild_id: $g, name: $words + ' ' + toString(i), "
            "name_key: 'big ' + toString(i), kind: 'place', aliases: [], alias_text: ''})",
            {"start": start, "end": min(start + BATCH, entities), "g": BIG_GUILD, "words": WORDS},
            database_=db,
        )
    for start in range(0, messages, BATCH):
        await run(
            "MATCH (ep:Episode {key: 'big-ep'}) "
            "UNWIND range($start, $end - 1) AS i "
            "MATCH (u:User {id: '95000000000000' + toString(1001 + i % $authors)}) "
            "MATCH (e:Entity {uuid: 'big-e' + toString(i % $entities)}) "
            "CREATE (u)-[:SENT]->(m:Message {id: 'big-m' + toString(i), guild_id: $g, channel_id: $c, author_id: u.id, "
            "content: $words + ' ' + toString(i), created_at: datetime('2024-01-01T00:00:00Z'), buffered: false, "
            "channel_time: $c + '|' + toString(1000000000000000 + 1704067200000 + i)})-[:IN_EPISODE]->(ep) "
            "CREATE (f:Fact {uuid: 'big-f' + toString(i), guild_id: $g, text: $words + ' ' + toString(i), category: 'other', "
            "importance: 1, confidence: 1.0, source: 'episode', valid_at: datetime('2024-01-01T00:00:00Z'), "
            "created_at: datetime('2024-01-01T00:00:00Z'), audience: [$c]})-[:FROM]->(m) "
            "CREATE (f)-[:EXTRACTED_FROM]->(ep) "
            "CREATE (f)-[:REPORTED_BY {message_id: m.id, at: m.created_at}]->(u) "
            "CREATE (f)-[:ABOUT]->(e)",
            {
                "start": start,
                "end": min(start + BATCH, messages),
                "g": BIG_GUILD,
                "c": BIG_CHANNEL,
                "words": WORDS,
                "authors": BIG_AUTHORS,
                "entities": entities,
            },
            database_=db,
        )
