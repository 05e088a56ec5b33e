// Entities the removed facts touched that no fact is about or mentions any more.
UNWIND $uuids AS uuid
MATCH (e:Entity {uuid: uuid})
WHERE NOT EXISTS { MATCH (e)<-[:ABOUT|MENTIONS]-(:Fact) }
DETACH DELETE e
RETURN count(*) AS entities
