// Earlier messages of one channel of one guild whose content matches a full-text query (Lucene syntax,
// built from escaped words), best match first, with their authors. Both the guild and the channel are
// matched, so a message of another guild (or of another channel, which readers may not be allowed to
// see) never comes back.
CALL db.index.fulltext.queryNodes('message_content', $query) YIELD node, score
WITH node AS m, score
WHERE m.guild_id = $guild_id AND m.channel_id = $channel_id AND m.created_at < datetime($before)
WITH m, max(score) AS score
ORDER BY score DESC, m.created_at DESC, m.id
LIMIT $limit
MATCH (u:User)-[:SENT]->(m)
RETURN m.id AS id, m.guild_id AS guild_id, m.channel_id AS channel_id, m.author_id AS author_id,
       m.content AS content, m.created_at AS created_at, m.edited_at AS edited_at,
       m.reply_to_id AS reply_to_id, u.name AS author_name, u.display_name AS author_display_name,
       u.is_bot AS author_is_bot, score
ORDER BY score DESC, created_at DESC, id
