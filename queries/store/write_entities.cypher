// New entities of an episode (idempotent on uuid); known ones gain the aliases they were called by.
UNWIND $entities AS row
MERGE (n:Entity {uuid: row.uuid})
ON CREATE SET n.guild_id = $guild_id, n.guild_term = 'g' + replace($guild_id, ':', ''), n.name = row.name, n.name_key = row.name_key, n.kind = row.kind,
              n.aliases = row.aliases, n.alias_text = row.alias_text, n.created_at = datetime($now)
ON MATCH SET n.aliases = n.aliases + [a IN row.aliases WHERE NOT a IN n.aliases],
             n.alias_text = reduce(s = '', a IN n.aliases + [a IN row.aliases WHERE NOT a IN n.aliases] | s + ' ' + a)
RETURN count(n) AS entities
