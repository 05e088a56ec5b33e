// Guilds whose counts are not kept yet (a store made before they were, a guild node made again): the
// backfill recounts each in its own transaction (graph/counts.py).
MATCH (g:Guild)
WHERE g.count_facts IS NULL
RETURN g.id AS id
