// Facts of one guild nearest to a query embedding (vector index).
// Channel scope: with $channel_id (null for operators), only facts with a channel of their stored audience
// 'shared', that channel or its parent (graph/scope.py), and only the reporters whose message is there.
OPTIONAL MATCH (here:Channel {id: coalesce($channel_id, '')})
WITH COLLECT { MATCH (c:Channel) WHERE c.guild_id = $guild_id AND c.mode = 'shared' RETURN c.id } + [$channel_id, here.parent_id] AS visible
CALL db.index.vector.queryNodes('fact_embedding', $k, $vector) YIELD node, score
WITH visible, node AS f, score
WHERE f.guild_id = $guild_id AND (f.invalid_at IS NULL OR f.invalid_at > datetime($now)) AND (f.expired_at IS NULL OR f.expired_at > datetime($now))
  AND (f.expires_at IS NULL OR f.expires_at > datetime($now))
  AND ($channel_id IS NULL OR any(a IN f.audience WHERE a IN visible))
WITH visible, f, max(score) AS score
ORDER BY score DESC
LIMIT $limit
CALL (f, visible) {
  RETURN COLLECT { MATCH (f)-[:ABOUT]->(s) RETURN {id: coalesce(s.id, s.uuid), name: coalesce(head([(s)-[mb:MEMBER_OF]->(:Guild {id: f.guild_id}) | mb.display_name]), s.display_name, s.name)} } AS about,
         COLLECT { MATCH (f)-[r:REPORTED_BY]->(rep:User) WHERE $channel_id IS NULL OR r.message_id = '' OR EXISTS { MATCH (rm:Message {id: r.message_id}) WHERE rm.channel_id IN visible } RETURN {id: rep.id, name: coalesce(head([(rep)-[mb:MEMBER_OF]->(:Guild {id: f.guild_id}) | mb.display_name]), rep.display_name, rep.name), at: toString(r.at)} } AS reporters,
         COLLECT { MATCH (newer:Fact)-[:SUPERSEDES]->(f) WHERE $channel_id IS NULL OR any(a IN newer.audience WHERE a IN visible) RETURN newer.uuid } AS superseded_by,
         COLLECT { MATCH (f)-[:FROM]->(m:Message) WHERE $channel_id IS NULL OR m.channel_id IN visible RETURN {message_id: m.id, channel_id: m.channel_id} } AS shown
}
RETURN f.uuid AS uuid, f.text AS text, f.category AS category, f.importance AS importance,
       f.confidence AS confidence, toString(f.valid_at) AS valid_at, toString(f.invalid_at) AS invalid_at,
       toString(f.expires_at) AS expires_at, toString(f.created_at) AS created_at, toString(f.expired_at) AS expired_at,
       about, reporters, superseded_by, shown, score
