// Facts about given users and entities of one guild that hold now (not closed, not retired, not
// past their expiry), most important and newest first, with whom they are about and who said them.
// Channel scope: with $channel_id (null for operators), only facts with a channel of their stored audience
// 'shared', that channel or its parent (graph/scope.py), and only the reporters whose message is there; what
// superseded them only when it may be seen there too.
OPTIONAL MATCH (here:Channel {id: coalesce($channel_id, '')})
WITH COLLECT { MATCH (c:Channel) WHERE c.guild_id = $guild_id AND c.mode = 'shared' RETURN c.id } + [$channel_id, here.parent_id] AS visible
CALL () {
  MATCH (s:User) WHERE s.id IN $user_ids RETURN s
  UNION
  MATCH (s:Entity) WHERE s.uuid IN $entity_uuids RETURN s
}
MATCH (s)<-[:ABOUT]-(f:Fact)
WHERE f.guild_id = $guild_id AND (f.invalid_at IS NULL OR f.invalid_at > datetime($now)) AND (f.expired_at IS NULL OR f.expired_at > datetime($now))
  AND (f.expires_at IS NULL OR f.expires_at > datetime($now))
  AND ($channel_id IS NULL OR any(a IN f.audience WHERE a IN visible))
WITH DISTINCT f, visible
ORDER BY f.importance DESC, f.valid_at DESC, f.uuid
LIMIT $limit
CALL (f, visible) {
  RETURN COLLECT { MATCH (f)-[:ABOUT]->(s) RETURN {id: coalesce(s.id, s.uuid), name: coalesce(head([(s)-[mb:MEMBER_OF]->(:Guild {id: f.guild_id}) | mb.display_name]), s.display_name, s.name)} } AS about,
         COLLECT { MATCH (f)-[r:REPORTED_BY]->(rep:User) WHERE $channel_id IS NULL OR r.message_id = '' OR EXISTS { MATCH (rm:Message {id: r.message_id}) WHERE rm.channel_id IN visible } RETURN {id: rep.id, name: coalesce(head([(rep)-[mb:MEMBER_OF]->(:Guild {id: f.guild_id}) | mb.display_name]), rep.display_name, rep.name), at: toString(r.at)} } AS reporters,
         COLLECT { MATCH (newer:Fact)-[:SUPERSEDES]->(f) WHERE $channel_id IS NULL OR any(a IN newer.audience WHERE a IN visible) RETURN newer.uuid } AS superseded_by,
         COLLECT { MATCH (f)-[:FROM]->(m:Message) WHERE $channel_id IS NULL OR m.channel_id IN visible RETURN {message_id: m.id, channel_id: m.channel_id} } AS shown
}
// Times as ISO text: the driver builds a datetime object far more slowly than Python parses the text;
// graph/reads/facts.py orders the rows as the WITH above did.
RETURN f.uuid AS uuid, f.text AS text, f.category AS category, f.importance AS importance,
       f.confidence AS confidence, toString(f.valid_at) AS valid_at, toString(f.invalid_at) AS invalid_at,
       toString(f.expires_at) AS expires_at, toString(f.created_at) AS created_at,
       toString(f.expired_at) AS expired_at, about, reporters, superseded_by, shown
