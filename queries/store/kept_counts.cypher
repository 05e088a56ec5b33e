// One guild's kept counts (graph/counts.py): its facts, entities, messages and episodes, one node read whatever
// the guild holds; null when they are not kept yet (then they are counted: store/guild_counts.cypher).
OPTIONAL MATCH (g:Guild {id: $guild_id})
RETURN g.id AS guild_id, g.count_facts AS facts, g.count_entities AS entities, g.count_messages AS messages,
       g.count_episodes AS episodes
