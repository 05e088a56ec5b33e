// Facts stated to the bot by a command ("remember ..."): no episode, FROM the command's message if stored.
UNWIND $facts AS row
CREATE (f:Fact {uuid: row.uuid, guild_id: $guild_id, text: row.text, category: row.category,
                importance: row.importance, confidence: row.confidence, source: row.source,
                valid_at: datetime(row.valid_at), invalid_at: null, expires_at: datetime(row.expires_at),
                created_at: datetime($now), expired_at: null, retire_at: datetime(row.expires_at),
                created_key: $guild_id + '|' + toString(1000000000000000 + datetime($now).epochMillis)})
SET f.embedding = row.embedding
WITH f, row
CALL (f, row) {
  UNWIND row.source_message_ids AS mid
  MATCH (m:Message {id: mid})
  MERGE (f)-[:FROM]->(m)
}
RETURN count(f) AS facts
