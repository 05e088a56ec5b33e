// New facts of an episode with every edge they start with: EXTRACTED_FROM the episode, FROM their messages,
// ABOUT and MENTIONS their members and entities, REPORTED_BY who said them (lists deduplicated by the
// caller). The facts are new, so are their edges: CREATE, where a MERGE would first read the other end's
// edges (a member's thousands of facts, an episode's) for one that cannot exist yet.
// Each fact's audience (graph/scope.py) is stored with it: the channels of the messages it came from (the
// episode's channel when none is stored), what every scoped read filters on.
// With `$finish` (an extraction's summary, fact count and tokens) the episode is marked done here too, as
// store/finish_episode.cypher does: one round trip fewer.
MATCH (ep:Episode {key: $key})
FOREACH (_ IN CASE WHEN $finish IS NULL THEN [] ELSE [1] END |
  SET ep.status = 'done', ep.summary = $finish.summary, ep.fact_count = $finish.fact_count, ep.error = null,
      ep.attempts = ep.attempts + 1, ep.extracted_at = datetime($now),
      ep.prompt_tokens = coalesce(ep.prompt_tokens, 0) + $finish.prompt_tokens,
      ep.completion_tokens = coalesce(ep.completion_tokens, 0) + $finish.completion_tokens)
WITH ep
UNWIND $facts AS row
CREATE (f:Fact {uuid: row.uuid, guild_id: $guild_id, guild_term: 'g' + replace($guild_id, ':', ''), text: row.text, category: row.category,
                importance: row.importance, confidence: row.confidence, source: row.source,
                valid_at: datetime(row.valid_at), invalid_at: null, expires_at: datetime(row.expires_at),
                created_at: datetime($now), expired_at: null, retire_at: datetime(row.expires_at),
                created_key: $guild_id + '|' + toString(1000000000000000 + datetime($now).epochMillis)})
SET f.embedding = row.embedding
CREATE (f)-[:EXTRACTED_FROM]->(ep)
WITH f, row, ep
CALL (f, row) {
  UNWIND row.message_ids AS mid
  MATCH (m:Message {id: mid})
  CREATE (f)-[:FROM]->(m)
}
WITH f, row, ep, COLLECT { MATCH (f)-[:FROM]->(m:Message) RETURN DISTINCT m.channel_id } AS heard
SET f.audience = CASE WHEN size(heard) = 0 THEN [ep.channel_id] ELSE heard END
WITH f, row
CALL (f, row) {
  UNWIND row.about_users AS uid
  MATCH (u:User {id: uid})
  CREATE (f)-[:ABOUT]->(u)
}
CALL (f, row) {
  UNWIND row.about_entities AS eid
  MATCH (x:Entity {uuid: eid})
  WHERE x.guild_id = $guild_id
  CREATE (f)-[:ABOUT]->(x)
}
CALL (f, row) {
  UNWIND row.mentioned_users AS uid
  MATCH (u:User {id: uid})
  CREATE (f)-[:MENTIONS]->(u)
}
CALL (f, row) {
  UNWIND row.mentioned_entities AS eid
  MATCH (x:Entity {uuid: eid})
  WHERE x.guild_id = $guild_id
  CREATE (f)-[:MENTIONS]->(x)
}
CALL (f, row) {
  UNWIND row.reports AS r
  MATCH (u:User {id: r.user_id})
  CREATE (f)-[:REPORTED_BY {message_id: r.message_id, at: datetime(r.at)}]->(u)
}
RETURN count(f) AS facts
