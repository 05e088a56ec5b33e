// Retention: a batch of closed facts (superseded, expired or capped: the :Closed label) that stopped
// holding before the bound: invalid_at, or when grapevine closed them (expired_at) for a fact with none.
MATCH (f:Closed)
WHERE coalesce(f.invalid_at, f.expired_at) < datetime($cutoff)
RETURN f.uuid AS uuid
LIMIT $batch
