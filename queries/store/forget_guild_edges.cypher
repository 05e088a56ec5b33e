// A forget in one guild, audited through the member's own node: any edge of theirs still into that guild
// (membership included).
MATCH (u:User {id: $user_id})-[r]-(x)
WHERE x.guild_id = $guild_id OR (x:Guild AND x.id = $guild_id)
RETURN type(r) AS type, coalesce(x.id, x.uuid, x.key) AS value
