// Messages as they arrive, idempotent on their ids; `buffered` marks a message not yet in an episode.
UNWIND $rows AS row
MATCH (u:User {id: row.author_id})
MERGE (m:Message {id: row.id})
ON CREATE SET m.guild_id = row.guild_id, m.channel_id = row.channel_id, m.author_id = row.author_id,
              m.content = row.content, m.created_at = datetime(row.created_at),
              m.edited_at = datetime(row.edited_at), m.reply_to_id = row.reply_to_id, m.buffered = true
MERGE (u)-[:SENT]->(m)
WITH m, row
// coalesce: an id that no message has, since matching {id: null} scans every message (ArcadeDB)
OPTIONAL MATCH (parent:Message {id: coalesce(row.reply_to_id, '')})
FOREACH (p IN CASE WHEN parent IS NULL THEN [] ELSE [parent] END | MERGE (m)-[:REPLIES_TO]->(p))
RETURN count(m) AS recorded
