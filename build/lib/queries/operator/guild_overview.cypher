// title: Guild overview
// answers: One row of counts for the guild: channels, people who wrote, messages, facts (valid and all), entities, and episodes per status.
// params: guild_id (string, required) - the guild; now (datetime, optional) - the moment that decides expiry, ISO-8601 (default: the current time)
// A valid fact is neither superseded nor retired nor past its expiry at `now`; bots are not counted as writers.
WITH coalesce(datetime($now), datetime()) AS now
MATCH (g:Guild {id: $guild_id})
CALL (g) {
  OPTIONAL MATCH (c:Channel)-[:IN_GUILD]->(g)
  RETURN count(c) AS channels
}
CALL (g) {
  OPTIONAL MATCH (u:User)-[:SENT]->(m:Message {guild_id: g.id})
  RETURN count(DISTINCT CASE WHEN coalesce(u.is_bot, false) THEN null ELSE u END) AS users_who_wrote,
         count(DISTINCT m) AS messages
}
CALL (g, now) {
  OPTIONAL MATCH (f:Fact {guild_id: g.id})
  RETURN count(f) AS facts,
         sum(CASE WHEN f IS NOT NULL AND f.invalid_at IS NULL AND f.expired_at IS NULL
                   AND (f.expires_at IS NULL OR f.expires_at > now) THEN 1 ELSE 0 END) AS facts_valid
}
CALL (g) {
  OPTIONAL MATCH (e:Entity {guild_id: g.id})
  RETURN count(e) AS entities
}
CALL (g) {
  OPTIONAL MATCH (ep:Episode {guild_id: g.id})
  RETURN sum(CASE WHEN ep.status = 'pending' THEN 1 ELSE 0 END) AS episodes_pending,
         sum(CASE WHEN ep.status = 'done' THEN 1 ELSE 0 END) AS episodes_done,
         sum(CASE WHEN ep.status = 'failed' THEN 1 ELSE 0 END) AS episodes_failed,
         sum(CASE WHEN ep.status = 'skipped' THEN 1 ELSE 0 END) AS episodes_skipped
}
RETURN g.id AS guild_id, g.name AS guild, channels, users_who_wrote, messages, facts_valid, facts, entities,
       episodes_pending, episodes_done, episodes_failed, episodes_skipped
