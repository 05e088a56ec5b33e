// Facts whose every source was deleted or changed, with their edges.
UNWIND $uuids AS uuid
MATCH (f:Fact {uuid: uuid})
DETACH DELETE f
RETURN count(*) AS facts
