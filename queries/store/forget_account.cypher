// Forget-me, the account: deleted with all its edges, unless scoped to one guild and it still has
// anything elsewhere: messages, facts, conversations, or a membership of another guild (then only its
// edges into that guild go).
MATCH (u:User {id: $user_id})
OPTIONAL MATCH (u)-[r:TOOK_PART_IN|RELATED_TO|REPORTED_BY|ABOUT|MENTIONS]-(x)
WHERE $guild_id IS NOT NULL AND x.guild_id = $guild_id
DELETE r
WITH DISTINCT u
WITH u, $guild_id IS NULL OR NOT EXISTS { MATCH (u)-[]-(y) WHERE coalesce(y.guild_id, y.id) <> $guild_id } AS whole
FOREACH (_ IN CASE WHEN whole THEN [1] ELSE [] END | DETACH DELETE u)
RETURN CASE WHEN whole THEN 1 ELSE 0 END AS users
