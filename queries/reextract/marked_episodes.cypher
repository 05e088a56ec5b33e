// Episodes holding edited messages that wait to be extracted again, oldest first.
MATCH (e:Episode)
WHERE e.reextract = true AND ($guild_id IS NULL OR e.guild_id = $guild_id)
RETURN e.key AS key, e.guild_id AS guild_id
ORDER BY e.ended_at
LIMIT $limit
