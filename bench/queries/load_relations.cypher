// Bench only (bench/scale.py): entities that belong to a user (RELATED_TO {kind}), e.g. a pet.
UNWIND $rows AS row
MATCH (e:Entity {uuid: row.entity_uuid})
MATCH (u:User {id: row.user_id})
CREATE (e)-[:RELATED_TO {kind: row.kind, created_at: datetime($now)}]->(u)
RETURN count(*) AS relations
