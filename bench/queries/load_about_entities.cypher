// Bench only (bench/scale.py): ABOUT edges from generated facts to entities.
UNWIND $rows AS row
MATCH (f:Fact {uuid: row.fact_uuid})
MATCH (e:Entity {uuid: row.target_id})
CREATE (f)-[:ABOUT]->(e)
RETURN count(*) AS links
