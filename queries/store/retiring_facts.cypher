// The facts store/retire_expired.cypher closes with the same $now: read just before it, so that their guilds' days
// of closed facts move with it (graph/counts.py).
MATCH (f:Fact)
WHERE f.retire_at <= $now
RETURN f.uuid AS id
