// Messages as they arrive, idempotent on their ids; `buffered` marks a message not yet in an episode.
// A message id already stored for another guild, channel or author is refused (listed in `refused`), never
// merged into that message; a copy whose `edited_at` is later than the stored one's is an edit.
UNWIND $rows AS row
MATCH (u:User {id: row.author_id})
MERGE (m:Message {id: row.id})
ON CREATE SET m.guild_id = row.guild_id, m.channel_id = row.channel_id, m.author_id = row.author_id,
              m.content = row.content, m.created_at = datetime(row.created_at),
              m.edited_at = datetime(row.edited_at), m.reply_to_id = row.reply_to_id, m.buffered = true,
              m.channel_time = row.channel_time
WITH m, row, u,
     m.guild_id = row.guild_id AND m.channel_id = row.channel_id AND m.author_id = row.author_id AS same
CALL (m, row, u, same) {
  WITH m, row, u WHERE same
  MERGE (u)-[:SENT]->(m)
  WITH m, row
  WHERE row.edited_at IS NOT NULL AND (m.edited_at IS NULL OR datetime(row.edited_at) > m.edited_at)
  SET m.content = row.content, m.edited_at = datetime(row.edited_at)
}
CALL (m, row, same) {
  // coalesce: an id that no message has, since matching {id: null} scans every message (ArcadeDB)
  WITH m, row WHERE same
  OPTIONAL MATCH (parent:Message {id: coalesce(row.reply_to_id, '')})
  FOREACH (p IN CASE WHEN parent IS NULL OR parent.channel_id <> m.channel_id THEN [] ELSE [parent] END |
    MERGE (m)-[:REPLIES_TO]->(p))
}
RETURN count(CASE WHEN same THEN 1 END) AS recorded, collect(CASE WHEN same THEN null ELSE row.id END) AS refused
