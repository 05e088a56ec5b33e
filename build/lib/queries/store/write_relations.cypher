// Lasting links: (entity)-[:RELATED_TO {kind}]->(user or entity), e.g. Charlie's sister.
UNWIND $relations AS row
MATCH (e:Entity {uuid: row.entity_uuid})
WITH e, row
WHERE e.guild_id = $guild_id
OPTIONAL MATCH (u:User {id: row.target_id}) WHERE row.target_kind = 'user'
OPTIONAL MATCH (x:Entity {uuid: row.target_id}) WHERE row.target_kind = 'entity'
WITH e, row, coalesce(u, x) AS target
WHERE target IS NOT NULL AND (target:User OR target.guild_id = $guild_id)
MERGE (e)-[r:RELATED_TO {kind: row.kind}]->(target)
ON CREATE SET r.created_at = datetime($now)
RETURN count(r) AS relations
