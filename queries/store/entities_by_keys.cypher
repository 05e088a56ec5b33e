// Entities of one guild by normalised name.
MATCH (e:Entity)
WHERE e.name_key IN $keys AND e.guild_id = $guild_id
RETURN e.uuid AS uuid, e.name AS name, e.kind AS kind, e.aliases AS aliases
