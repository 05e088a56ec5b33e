// At most $cap active facts per user per guild: retire the lowest importance, then the oldest.
MATCH (u:User)<-[:ABOUT]-(f:Fact)
WHERE f.expired_at IS NULL AND f.invalid_at IS NULL
WITH u, f.guild_id AS guild_id, f
ORDER BY f.importance DESC, f.valid_at DESC, f.created_at DESC
WITH u, guild_id, collect(f) AS facts
WHERE size(facts) > $cap
UNWIND facts[$cap..] AS old
SET old.expired_at = datetime($now), old:Closed
RETURN count(old) AS retired
