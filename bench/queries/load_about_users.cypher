// Bench only (bench/scale.py): ABOUT edges from generated facts to users.
UNWIND $rows AS row
MATCH (f:Fact {uuid: row.fact_uuid})
MATCH (u:User {id: row.target_id})
CREATE (f)-[:ABOUT]->(u)
RETURN count(*) AS links
