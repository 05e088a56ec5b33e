// Entities of one guild by normalised name.
UNWIND $keys AS key
MATCH (e:Entity {name_key: key})
WITH e
WHERE e.guild_id = $guild_id
RETURN e.uuid AS uuid, e.name AS name, e.kind AS kind, e.aliases AS aliases
