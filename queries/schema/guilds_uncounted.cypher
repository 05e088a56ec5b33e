// Guilds whose counts or days (ActivityDay) are not kept yet (a store made before they were, a guild node made
// again): the backfill recounts each in its own transaction (graph/counts.py).
MATCH (g:Guild)
WHERE g.count_facts IS NULL OR g.activity_kept IS NULL
RETURN g.id AS id
