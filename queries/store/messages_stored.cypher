// Which of $ids are stored already, and as whose message: record_messages (graph/writes/messages.py) creates only the new
// ones and refuses an id that another guild, channel or author holds.
UNWIND $ids AS id
MATCH (m:Message {id: id})
RETURN m.id AS id, m.guild_id AS guild_id, m.channel_id AS channel_id, m.author_id AS author_id
