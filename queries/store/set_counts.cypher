// One guild's kept counts set to a recount made in the same transaction (store/guild_counts.cypher): the
// backfill of a store made before they were kept, a guild node made again, `grapevine stats --recount`.
MATCH (g:Guild {id: $guild_id})
SET g.count_facts = $facts, g.count_entities = $entities, g.count_messages = $messages, g.count_episodes = $episodes
RETURN g.id AS guild_id
