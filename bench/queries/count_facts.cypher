// Bench only: how many facts a guild holds, and how many of them are still valid.
MATCH (f:Fact)
WHERE f.guild_id = $guild_id
RETURN count(f) AS facts, count(CASE WHEN f.invalid_at IS NULL THEN 1 END) AS valid
