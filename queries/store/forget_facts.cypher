// Forget-me, facts by uuid (each through the unique index), with the entities they touched and the
// episodes they came from: entities left with no facts go next, episode summaries are checked for names.
UNWIND $uuids AS id
MATCH (f:Fact {uuid: id})
WITH f, COLLECT { MATCH (f)-[:ABOUT|MENTIONS]->(e:Entity) RETURN e.uuid } AS touched,
     COLLECT { MATCH (f)-[:EXTRACTED_FROM]->(ep:Episode) RETURN ep.uuid } AS episodes
DETACH DELETE f
RETURN count(f) AS facts, reduce(all = [], t IN collect(touched) | all + t) AS touched,
       reduce(all = [], e IN collect(episodes) | all + e) AS episodes
