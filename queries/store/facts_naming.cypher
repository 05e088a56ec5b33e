// Forget-me: facts (in $guild_id, or every guild when null) whose text contains the member's id or one
// of their names ($names in lowercase); forget-me keeps those that name them as a whole word.
MATCH (f:Fact)
WHERE ($guild_id IS NULL OR f.guild_id = $guild_id)
  AND (f.text CONTAINS $user_id OR any(name IN $names WHERE toLower(f.text) CONTAINS name))
RETURN f.uuid AS uuid, f.text AS text
