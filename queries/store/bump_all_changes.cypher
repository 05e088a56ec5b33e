// One change more on every guild: the last statement of a write transaction that did not name the guilds it
// wrote (a forget across guilds, retention, a backfill; graph/changes.py). $seed as in store/bump_changes.cypher.
MATCH (g:Guild)
SET g.changes = coalesce(g.changes, $seed) + 1
RETURN g.id AS guild_id, g.changes AS changes
