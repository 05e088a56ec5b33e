// Facts stated to the bot by a command ("remember ..."): no episode, FROM the command's message if stored.
// Their audience (graph/scope.py): the channels of those messages and the channel the command was given in;
// none (visible to operators only) when neither is known.
UNWIND $facts AS row
CREATE (f:Fact {uuid: row.uuid, guild_id: $guild_id, guild_term: 'g' + replace($guild_id, ':', ''), text: row.text, category: row.category,
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
WITH f, row, COLLECT { MATCH (f)-[:FROM]->(m:Message) RETURN DISTINCT m.channel_id } AS heard
SET f.audience = heard + [c IN [row.channel_id] WHERE c IS NOT NULL AND NOT c IN heard]
RETURN count(f) AS facts
