// Bench only: the messages each fact of a guild was drawn from (FROM edges), for evidence recall.
MATCH (f:Fact)-[:FROM]->(m:Message)
WHERE f.guild_id = $guild_id
RETURN f.uuid AS uuid, m.id AS message_id
