// A message's REPLIES_TO edge to the message it answers, when that one is stored in the same channel
// (idempotent: a message recorded again, or whose parent arrived after it, links once).
UNWIND $rows AS row
MATCH (m:Message {id: row.id})
MATCH (parent:Message {id: row.reply_to_id})
WHERE parent.channel_id = m.channel_id
MERGE (m)-[:REPLIES_TO]->(parent)
