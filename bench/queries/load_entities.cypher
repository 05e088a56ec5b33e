// Bench only (bench/scale.py): generated entities, one UNWIND batch.
UNWIND $rows AS row
CREATE (n:Entity {uuid: row.uuid, guild_id: $guild_id, guild_term: 'g' + replace($guild_id, ':', ''), name: row.name, name_key: row.name_key, kind: row.kind,
                  aliases: row.aliases, alias_text: row.alias_text, created_at: datetime($now)})
RETURN count(n) AS entities
