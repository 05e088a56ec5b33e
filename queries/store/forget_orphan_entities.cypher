// Forget-me, entities by uuid (those the forgotten facts touched, or linked to the user) that no fact is
// about or mentions any more.
UNWIND $uuids AS id
MATCH (e:Entity {uuid: id})
WITH DISTINCT e
WHERE NOT EXISTS { MATCH (e)<-[:ABOUT|MENTIONS]-(:Fact) }
DETACH DELETE e
RETURN count(e) AS entities
