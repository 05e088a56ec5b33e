// A forget in one guild: the member's own edges into it (membership included), and any property of an
// edge of that guild's nodes that contains the member's id.
MATCH (u:User {id: $user_id})-[r]-(x)
WHERE x.guild_id = $guild_id OR (x:Guild AND x.id = $guild_id)
RETURN type(r) AS type, 'edge' AS key, coalesce(x.id, x.uuid, x.key) AS value
UNION ALL
MATCH (x)-[r]-()
WHERE x.guild_id = $guild_id
UNWIND keys(r) AS key
WITH r, key, toStringOrNull(r[key]) AS value
WHERE value IS NOT NULL AND value CONTAINS $user_id
RETURN DISTINCT type(r) AS type, key, value
