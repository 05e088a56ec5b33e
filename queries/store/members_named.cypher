// A member given by a name (`grapevine members NAME`, `--user Bob`): the accounts whose account name, display
// name or nickname, casefolded, is $name, a nickname counted only in $guild_id when it is set (a name is theirs
// where they carry it); bots left out. One row per account and guild it belongs to ($guild_id only, when set),
// with the last time it wrote there.
CALL () {
  MATCH (u:User {name_lower: $name}) RETURN u
  UNION
  MATCH (u:User {display_lower: $name}) RETURN u
  UNION
  MATCH (u:User)-[mb:MEMBER_OF]->(g:Guild)
  WHERE mb.display_lower = $name AND ($guild_id IS NULL OR g.id = $guild_id)
  RETURN u
}
WITH u
WHERE NOT coalesce(u.is_bot, false)
MATCH (u)-[mb:MEMBER_OF]->(g:Guild)
WHERE $guild_id IS NULL OR g.id = $guild_id
OPTIONAL MATCH (u)-[:SENT]->(m:Message {guild_id: g.id})
WITH u.id AS id, u.name AS username, u.display_name AS display_name, g.id AS guild_id, g.name AS guild,
     mb.display_name AS nickname, max(m.created_at) AS last_seen
RETURN id, username, display_name, guild_id, guild, nickname, last_seen
ORDER BY id, guild_id
LIMIT $limit
