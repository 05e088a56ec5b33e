// A write transaction's changes to its guilds' kept counts (graph/counts.py), in the same transaction: one row
// per guild with what it added (or, negative, removed) of each. A guild whose counts are not kept yet (null: a
// guild node made again, a store before them) stays so: the next read recounts it (store/set_counts.cypher).
UNWIND $rows AS row
MATCH (g:Guild {id: row.guild_id})
WHERE g.count_facts IS NOT NULL
SET g.count_facts = g.count_facts + row.facts, g.count_entities = g.count_entities + row.entities,
    g.count_messages = g.count_messages + row.messages, g.count_episodes = g.count_episodes + row.episodes
RETURN g.id AS guild_id
