// Accounts that have written in this guild whose name or display name is one of $names (lowercase).
MATCH (u:User)
WHERE (toLower(u.name) IN $names OR toLower(u.display_name) IN $names)
  AND EXISTS { MATCH (u)-[:SENT]->(m:Message) WHERE m.guild_id = $guild_id }
RETURN u.id AS id, u.name AS name, u.display_name AS display_name, u.is_bot AS is_bot
LIMIT $limit
