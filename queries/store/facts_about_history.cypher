// Facts about given users and entities of one guild: what was valid at $at (when given; else what holds at $now,
// plans not begun yet included), or every fact with what superseded it ($history), newest first. A fact holds
// until its end, its expiry or its closing (graph/models.py `holds`).
CALL () {
  MATCH (s:User) WHERE s.id IN $user_ids RETURN s
  UNION
  MATCH (s:Entity) WHERE s.uuid IN $entity_uuids RETURN s
}
MATCH (s)<-[:ABOUT]-(f:Fact)
WHERE f.guild_id = $guild_id
  AND ($history
       OR (($at IS NULL OR f.valid_at <= datetime($at))
           AND (f.invalid_at IS NULL OR f.invalid_at > datetime(coalesce($at, $now)))
           AND (f.expires_at IS NULL OR f.expires_at > datetime(coalesce($at, $now)))
           AND (f.expired_at IS NULL OR f.expired_at > datetime(coalesce($at, $now)))))
WITH DISTINCT f
ORDER BY f.valid_at DESC, f.uuid
LIMIT $limit
CALL (f) {
  RETURN COLLECT { MATCH (f)-[:ABOUT]->(s) RETURN {id: coalesce(s.id, s.uuid), name: coalesce(head([(s)-[mb:MEMBER_OF]->(:Guild {id: f.guild_id}) | mb.display_name]), s.display_name, s.name)} } AS about,
         COLLECT { MATCH (f)-[r:REPORTED_BY]->(rep:User) RETURN {id: rep.id, name: coalesce(head([(rep)-[mb:MEMBER_OF]->(:Guild {id: f.guild_id}) | mb.display_name]), rep.display_name, rep.name), at: toString(r.at)} } AS reporters,
         COLLECT { MATCH (newer:Fact)-[:SUPERSEDES]->(f) RETURN newer.uuid } AS superseded_by
}
RETURN f.uuid AS uuid, f.text AS text, f.category AS category, f.importance AS importance,
       f.confidence AS confidence, toString(f.valid_at) AS valid_at, toString(f.invalid_at) AS invalid_at,
       toString(f.expires_at) AS expires_at, toString(f.created_at) AS created_at, toString(f.expired_at) AS expired_at,
       about, reporters, superseded_by
ORDER BY f.valid_at DESC, uuid
