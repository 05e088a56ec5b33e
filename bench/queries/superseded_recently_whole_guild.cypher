// Bench only (bench/bounded_reads.py): queries/operator/superseded_recently.cypher as it was before its
// range of the fact_expired_at index ($now as ISO text): every supersession of the guild, then the last $days.
WITH coalesce(datetime($now), datetime()) AS now
MATCH (new:Fact {guild_id: $guild_id})-[:SUPERSEDES]->(old:Fact {guild_id: $guild_id})
WHERE old.expired_at IS NOT NULL AND old.expired_at <= now AND old.expired_at >= now - duration({days: $days})
RETURN old.uuid AS old_uuid, old.text AS old_fact, old.valid_at AS old_valid_at, old.invalid_at AS old_invalid_at,
       old.expired_at AS superseded_at, new.uuid AS new_uuid, new.text AS new_fact, new.valid_at AS new_valid_at
ORDER BY superseded_at DESC, old_uuid
