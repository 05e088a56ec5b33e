// Relationship counts per type and guild (the guild of the start node).
MATCH (a)-[r]->()
RETURN type(r) AS type, a.guild_id AS guild_id, count(*) AS count
ORDER BY type, guild_id
