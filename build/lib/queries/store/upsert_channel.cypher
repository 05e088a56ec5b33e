// A channel, thread, forum post or DM, idempotent on its id, linked to its guild.
MERGE (g:Guild {id: $guild_id})
ON CREATE SET g.name = $guild_id
MERGE (c:Channel {id: $id})
SET c.guild_id = $guild_id, c.name = $name, c.kind = $kind, c.parent_id = $parent_id
MERGE (c)-[:IN_GUILD]->(g)
