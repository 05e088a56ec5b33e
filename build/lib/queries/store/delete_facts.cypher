// Delete facts by uuid in one guild (forget, and facts that name a forgotten user).
MATCH (f:Fact)
WHERE f.uuid IN $uuids AND ($guild_id IS NULL OR f.guild_id = $guild_id)
DETACH DELETE f
RETURN count(f) AS deleted
