// One guild's change count (graph/changes.py): what a read answered from a process's memory (graph/reads/
// talk_model.py) checks first when no other read of the reply has read it.
OPTIONAL MATCH (g:Guild {id: $guild_id})
RETURN g.changes AS changes
