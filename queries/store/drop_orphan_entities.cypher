// After "forget <what>": entities the deleted facts touched that no fact is about or mentions any more,
// and that link to nobody (a RELATED_TO edge is knowledge of its own).
MATCH (e:Entity)
WHERE e.uuid IN $uuids AND e.guild_id = $guild_id
  AND NOT EXISTS { MATCH (e)<-[:ABOUT|MENTIONS]-(:Fact) }
  AND NOT EXISTS { MATCH (e)-[:RELATED_TO]->() }
DETACH DELETE e
RETURN count(e) AS entities
