// The facts told only in an erased channel and its threads ($channel_ids): every channel of their audience is one
// of them (graph/scope.py), whether or not a source message is left (retention keeps facts without theirs). They
// go with the channel, with the entities they touch that nothing else then uses.
MATCH (f:Fact)
WHERE f.guild_id = $guild_id AND size(coalesce(f.audience, [])) > 0
  AND all(a IN f.audience WHERE a IN $channel_ids)
RETURN f.uuid AS uuid, COLLECT { MATCH (f)-[:ABOUT|MENTIONS]->(e:Entity) RETURN e.uuid } AS entities
