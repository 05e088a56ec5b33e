// The last messages of a channel before a time (the context carried into a window's prompt), read from
// one span of the channel's history: channel_time from $from_key (inclusive) to $to_key (exclusive), an index
// range (graph/keys.py); the caller widens the span when it holds fewer than $limit.
MATCH (u:User)-[:SENT]->(m:Message)
WHERE m.channel_time >= $from_key AND m.channel_time < $to_key
WITH u, m ORDER BY m.channel_time DESC, m.id DESC LIMIT $limit
RETURN m.id AS id, m.guild_id AS guild_id, m.channel_id AS channel_id, m.author_id AS author_id,
       m.content AS content, m.created_at AS created_at, m.edited_at AS edited_at,
       m.reply_to_id AS reply_to_id, u.name AS author_name, coalesce(head([(u)-[mb:MEMBER_OF]->(:Guild {id: m.guild_id}) | mb.display_name]), u.display_name) AS author_display_name,
       u.is_bot AS author_is_bot
ORDER BY m.created_at, m.id
