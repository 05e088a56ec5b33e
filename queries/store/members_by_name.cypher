// Accounts that have written in this guild whose name or display name, casefolded, is one of $names.
CALL () {
  UNWIND $names AS name MATCH (u:User {name_lower: name}) RETURN u
  UNION
  UNWIND $names AS name MATCH (u:User {display_lower: name}) RETURN u
  UNION
  MATCH (u:User)-[mb:MEMBER_OF]->(:Guild {id: $guild_id}) WHERE mb.display_lower IN $names RETURN u
}
WITH u
WHERE EXISTS { MATCH (u)-[:SENT]->(m:Message) WHERE m.guild_id = $guild_id }
RETURN u.id AS id, u.name AS name, u.is_bot AS is_bot,
       coalesce(head([(u)-[mb:MEMBER_OF]->(:Guild {id: $guild_id}) | mb.display_name]), u.display_name) AS display_name
LIMIT $limit
