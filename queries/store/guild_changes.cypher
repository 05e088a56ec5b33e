// Every guild's change count (graph/changes.py): what a process holding guilds' facts in memory checks between
// replies, to drop what another process's write (a forget from the CLI) made stale.
MATCH (g:Guild)
RETURN g.id AS guild_id, g.changes AS changes
