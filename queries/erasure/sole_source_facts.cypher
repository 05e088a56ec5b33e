// Facts drawn only from $ids (every message they came from is one of them), with the entities they touch:
// they go with those messages. Facts with another source stay (see drop_reports.cypher).
UNWIND $ids AS mid
MATCH (:Message {id: mid})<-[:FROM]-(f:Fact)
WITH DISTINCT f
WHERE NOT EXISTS { MATCH (f)-[:FROM]->(other:Message) WHERE NOT other.id IN $ids }
RETURN f.uuid AS uuid, COLLECT { MATCH (f)-[:ABOUT|MENTIONS]->(e:Entity) RETURN e.uuid } AS entities
