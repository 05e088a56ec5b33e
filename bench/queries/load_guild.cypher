// Bench only (bench/scale.py): the generated guild and its channels.
MERGE (g:Guild {id: $guild_id})
ON CREATE SET g.name = $name
WITH g
UNWIND $channels AS row
CREATE (c:Channel {id: row.id, guild_id: $guild_id, name: row.name, kind: 'text', parent_id: null})
CREATE (c)-[:IN_GUILD]->(g)
RETURN count(c) AS channels
