// Forget-me, the entities that were the member's alone ("Charlie's sister": linked to them, to no other
// member): they go with their edges, whatever still mentions them (facts about them went just before).
UNWIND $uuids AS id
MATCH (e:Entity {uuid: id})
DETACH DELETE e
RETURN count(e) AS entities
