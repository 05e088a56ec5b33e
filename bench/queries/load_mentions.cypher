// Bench only (bench/scale.py): MENTIONS edges from generated facts to entities.
UNWIND $rows AS row
MATCH (f:Fact {uuid: row.fact_uuid})
MATCH (e:Entity {uuid: row.target_id})
CREATE (f)-[:MENTIONS]->(e)
RETURN count(*) AS links
