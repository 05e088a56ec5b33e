// The members (per guild) who were given a fact since the last cap pass: one range of the fact_created_at
// index ($since and $until native datetimes: a computed bound, or a WITH before the ABOUT edge, would make
// ArcadeDB scan every fact; an open-ended range is estimated large and may be read as a label scan).
MATCH (u:User)<-[:ABOUT]-(f:Fact)
WHERE f.created_at >= $since AND f.created_at < $until
RETURN DISTINCT u.id AS user_id, f.guild_id AS guild_id
