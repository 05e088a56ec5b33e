// Bench only (bench/bounded_reads.py): the per-member fact cap read the unbounded way, reading every
// member's active facts, kept to compare its cost with graph/writes/user_cap.py's.
MATCH (u:User)<-[:ABOUT]-(f:Fact)
WHERE f.expired_at IS NULL AND f.invalid_at IS NULL
WITH u, f.guild_id AS guild_id, f
ORDER BY f.importance DESC, f.valid_at DESC, f.created_at DESC
WITH u, guild_id, collect(f) AS facts
WHERE size(facts) > $cap
UNWIND facts[$cap..] AS old
SET old.expired_at = datetime($now), old:Closed
RETURN count(old) AS retired
