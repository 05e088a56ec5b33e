// Bench only (bench/bounded_reads.py): `memory status`'s fact counts as they were read before the string keys,
// one range of the fact_created_at and one of the fact_expired_at datetime index (native $since / $until).
MATCH (f:Fact)
WHERE f.created_at >= $since AND f.created_at < $until
WITH f WHERE f.guild_id = $guild_id
RETURN 'learned' AS kind, count(f) AS count;
MATCH (f:Fact)
WHERE f.expired_at >= $since AND f.expired_at < $until
WITH f WHERE f.guild_id = $guild_id
RETURN 'closed' AS kind, count(f) AS count
