// title: Guild overview
// answers: One row of counts for the guild: channels, people who wrote, messages, facts (valid and all), entities, and episodes per status.
// params: guild_id (string, required) - the guild; now (datetime, optional) - the moment that decides expiry (default: the current time)
// A valid fact is neither superseded nor retired nor past its expiry at `now`; bots are not counted as writers.
// Each count reads one label through its guild_id index, one after another: nothing of another guild is
// read (CALL subqueries would be planned without indexes by ArcadeDB, scanning every guild's records).
MATCH (g:Guild {id: $guild_id})
WITH g, coalesce($now, datetime()) AS now
OPTIONAL MATCH (c:Channel {guild_id: $guild_id})
WITH g, now, count(c) AS channels
OPTIONAL MATCH (m:Message {guild_id: $guild_id})<-[:SENT]-(u:User)
WITH g, now, channels, count(DISTINCT m) AS messages,
     count(DISTINCT CASE WHEN coalesce(u.is_bot, false) THEN null ELSE u END) AS users_who_wrote
OPTIONAL MATCH (f:Fact {guild_id: $guild_id})
WITH g, channels, messages, users_who_wrote, count(f) AS facts,
     sum(CASE WHEN f IS NOT NULL AND f.invalid_at IS NULL AND f.expired_at IS NULL
               AND (f.expires_at IS NULL OR f.expires_at > now) THEN 1 ELSE 0 END) AS facts_valid
OPTIONAL MATCH (e:Entity {guild_id: $guild_id})
WITH g, channels, messages, users_who_wrote, facts, facts_valid, count(e) AS entities
OPTIONAL MATCH (ep:Episode {guild_id: $guild_id})
RETURN g.id AS guild_id, g.name AS guild, channels, users_who_wrote, messages, facts_valid, facts, entities,
       sum(CASE WHEN ep.status = 'pending' THEN 1 ELSE 0 END) AS episodes_pending,
       sum(CASE WHEN ep.status = 'done' THEN 1 ELSE 0 END) AS episodes_done,
       sum(CASE WHEN ep.status = 'failed' THEN 1 ELSE 0 END) AS episodes_failed,
       sum(CASE WHEN ep.status = 'skipped' THEN 1 ELSE 0 END) AS episodes_skipped
