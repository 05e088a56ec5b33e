// Accounts that have written in this guild whose name or display name, casefolded, is one of $names.
CALL () {
  UNWIND $names AS name MATCH (u:User {name_lower: name}) RETURN u
  UNION
  UNWIND $names AS name MATCH (u:User {display_lower: name}) RETURN u
}
WITH u
WHERE EXISTS { MATCH (u)-[:SENT]->(m:Message) WHERE m.guild_id = $guild_id }
RETURN u.id AS id, u.name AS name, u.display_name AS display_name, u.is_bot AS is_bot
LIMIT $limit
