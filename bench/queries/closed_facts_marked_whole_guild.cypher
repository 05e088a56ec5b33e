// Bench only (bench/bounded_reads.py): queries/operator/closed_facts_marked.cypher as it was before its
// range of the fact_expired_at index: every fact of the guild, to keep the closed ones.
MATCH (f:Fact {guild_id: $guild_id})
WHERE f.invalid_at IS NOT NULL OR f.expired_at IS NOT NULL
OPTIONAL MATCH replaced = (newer:Fact)-[:SUPERSEDES]->(f)
WITH f, replaced, newer
ORDER BY f.expired_at DESC, f.uuid
LIMIT coalesce($limit, 100)
RETURN f AS fact, replaced,
       {closed: true, reason: CASE WHEN newer IS NULL THEN 'expired' ELSE 'superseded' END,
        text: f.text, invalid_at: f.invalid_at, closed_at: f.expired_at, replaced_by: newer.text} AS mark
