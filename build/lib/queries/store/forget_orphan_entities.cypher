// Forget-me, entities: those the forgotten facts touched, or linked to the user, that no fact is about or mentions any more.
MATCH (e:Entity)
WHERE e.uuid IN $uuids OR EXISTS { MATCH (e)-[:RELATED_TO]->(:User {id: $user_id}) WHERE $guild_id IS NULL OR e.guild_id = $guild_id }
WITH DISTINCT e
WHERE NOT EXISTS { MATCH (e)<-[:ABOUT|MENTIONS]-(:Fact) }
DETACH DELETE e
RETURN count(e) AS entities
