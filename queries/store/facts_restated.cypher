// The current facts about given members and entities of one guild, with their subjects' ids and reporters' ids:
// what an episode's new facts are compared with before they are written (graph/writes/episodes.py `restated`).
// Two parts, each from its subjects' index; a fact about both kinds comes once (UNION).
UNWIND $user_ids AS uid
MATCH (s:User {id: uid})<-[:ABOUT]-(f:Fact)
WHERE f.guild_id = $guild_id AND (f.invalid_at IS NULL OR f.invalid_at > datetime($now))
  AND (f.expired_at IS NULL OR f.expired_at > datetime($now)) AND (f.expires_at IS NULL OR f.expires_at > datetime($now))
WITH f LIMIT $limit
RETURN f.uuid AS uuid, f.text AS text, [(f)-[:ABOUT]->(x) | coalesce(x.id, x.uuid)] AS about,
       [(f)-[:REPORTED_BY]->(r:User) | r.id] AS reporters
UNION
UNWIND $entity_uuids AS eid
MATCH (s:Entity {uuid: eid})<-[:ABOUT]-(f:Fact)
WHERE f.guild_id = $guild_id AND (f.invalid_at IS NULL OR f.invalid_at > datetime($now))
  AND (f.expired_at IS NULL OR f.expired_at > datetime($now)) AND (f.expires_at IS NULL OR f.expires_at > datetime($now))
WITH f LIMIT $limit
RETURN f.uuid AS uuid, f.text AS text, [(f)-[:ABOUT]->(x) | coalesce(x.id, x.uuid)] AS about,
       [(f)-[:REPORTED_BY]->(r:User) | r.id] AS reporters
