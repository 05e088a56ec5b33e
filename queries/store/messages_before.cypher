// The last messages of a channel before a time (the context carried into a window's prompt).
MATCH (m:Message {channel_id: $channel_id})
WHERE m.created_at < datetime($before)
WITH m ORDER BY m.created_at DESC, m.id DESC LIMIT $limit
MATCH (u:User)-[:SENT]->(m)
RETURN m.id AS id, m.guild_id AS guild_id, m.channel_id AS channel_id, m.author_id AS author_id,
       m.content AS content, m.created_at AS created_at, m.edited_at AS edited_at,
       m.reply_to_id AS reply_to_id, u.name AS author_name, coalesce(head([(u)-[mb:MEMBER_OF]->(:Guild {id: m.guild_id}) | mb.display_name]), u.display_name) AS author_display_name,
       u.is_bot AS author_is_bot
ORDER BY m.created_at, m.id
