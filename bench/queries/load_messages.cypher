// Bench only (bench/scale.py): generated messages with their authors (SENT), one UNWIND batch.
UNWIND $rows AS row
MATCH (u:User {id: row.author_id})
CREATE (m:Message {id: row.id, guild_id: $guild_id, guild_term: 'g' + replace($guild_id, ':', ''), channel_id: row.channel_id, author_id: row.author_id,
                   content: row.content, created_at: datetime(row.created_at), edited_at: null,
                   reply_to_id: row.reply_to_id,
                   channel_time: row.channel_id + '|' + toString(1000000000000000 + datetime(row.created_at).epochMillis)})
CREATE (u)-[:SENT]->(m)
RETURN count(m) AS messages
