// Bench only (bench/scale.py): SUPERSEDES from newer facts to the older ones load_closed_facts.cypher
// created closed.
UNWIND $rows AS row
MATCH (new:Fact {uuid: row.new_uuid})
MATCH (old:Fact {uuid: row.old_uuid})
CREATE (new)-[:SUPERSEDES]->(old)
RETURN count(*) AS superseded
