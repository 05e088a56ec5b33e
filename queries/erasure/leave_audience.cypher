// An erased channel and its threads ($channel_ids) leave the audience of the facts also told elsewhere: what was
// said there is no longer held, so it widens nothing (graph/scope.py).
MATCH (f:Fact)
WHERE f.guild_id = $guild_id AND any(a IN coalesce(f.audience, []) WHERE a IN $channel_ids)
SET f.audience = [a IN f.audience WHERE NOT a IN $channel_ids]
RETURN count(f) AS facts
