// ABOUT and MENTIONS edges of new facts, to users (by id) or entities (by uuid).
UNWIND $links AS row
MATCH (f:Fact {uuid: row.fact_uuid})
OPTIONAL MATCH (u:User {id: row.target_id}) WHERE row.target_kind = 'user'
OPTIONAL MATCH (x:Entity {uuid: row.target_id}) WHERE row.target_kind = 'entity'
WITH f, row, coalesce(u, x) AS target
WHERE target IS NOT NULL AND (target:User OR target.guild_id = $guild_id)
FOREACH (_ IN CASE WHEN row.rel = 'ABOUT' THEN [1] ELSE [] END | MERGE (f)-[:ABOUT]->(target))
FOREACH (_ IN CASE WHEN row.rel = 'MENTIONS' THEN [1] ELSE [] END | MERGE (f)-[:MENTIONS]->(target))
RETURN count(*) AS links
