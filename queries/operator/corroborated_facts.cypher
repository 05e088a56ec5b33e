// title: Corroborated facts
// answers: Facts that several people reported, with the reporter count and who they were, best corroborated first.
// params: guild_id (string, required) - the guild; include_closed (bool, optional) - also list superseded or expired facts (default false); now (datetime, optional) - the moment that decides expiry (default: the current time)
// Closed facts are those with invalid_at or expired_at set, or past their expires_at at `now`.
WITH coalesce($now, datetime()) AS now
MATCH (f:Fact {guild_id: $guild_id})
WHERE coalesce($include_closed, false)
   OR (f.invalid_at IS NULL AND f.expired_at IS NULL AND (f.expires_at IS NULL OR f.expires_at > now))
MATCH (f)-[:REPORTED_BY]->(u:User)
WITH f, count(DISTINCT u) AS reporter_count, collect(DISTINCT coalesce(u.display_name, u.name)) AS reporters
WHERE reporter_count >= 2
RETURN f.uuid AS fact_uuid, f.text AS fact, f.importance AS importance, reporter_count, reporters,
       COLLECT { MATCH (f)-[:ABOUT]->(s) RETURN coalesce(s.display_name, s.name) } AS about
ORDER BY reporter_count DESC, importance DESC, fact
