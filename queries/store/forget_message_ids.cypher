// Forget-me: the ids and channels of the messages the member sent (in $guild_id, or everywhere), so
// that others' replies and the episode keys built from them can drop those ids.
MATCH (:User {id: $user_id})-[:SENT]->(m:Message)
WHERE m.author_id = $user_id AND ($guild_id IS NULL OR m.guild_id = $guild_id)
RETURN collect(m.id) AS ids, collect(DISTINCT m.channel_id) AS channels
