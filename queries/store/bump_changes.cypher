// One change more on each guild a write transaction wrote, as its last statement (graph/changes.py): a process
// that keeps a guild's facts in memory compares the count before it answers from them. A guild node made again
// (a reset) starts from $seed, a random number, so a count never comes back to a value a model holds.
UNWIND $guild_ids AS id
MATCH (g:Guild {id: id})
SET g.changes = coalesce(g.changes, $seed) + 1
RETURN g.id AS guild_id, g.changes AS changes
