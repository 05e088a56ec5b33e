// Earlier messages of one channel of one guild whose content matches a full-text query (Lucene syntax,
// built from escaped words), best match first, with their authors. Both the guild and the channel are
// matched, so a message of another guild (or of another channel, which readers may not be allowed to
// see) never comes back. The index gives its $hits best matches (common words match a large share of
// all messages), filtered here; $before is a native datetime; times come back as ISO strings.
CALL db.index.fulltext.queryNodes('message_content', $query, {limit: $hits}) YIELD node, score
WITH node AS m, score
WHERE m.guild_id = $guild_id AND m.channel_id = $channel_id AND m.created_at < $before
WITH m, max(score) AS score
ORDER BY score DESC, m.created_at DESC, m.id
LIMIT $limit
MATCH (u:User)-[:SENT]->(m)
RETURN collect({id: m.id, guild_id: m.guild_id, channel_id: m.channel_id, author_id: m.author_id,
                content: m.content, created_at: toString(m.created_at), reply_to_id: m.reply_to_id,
                author_name: u.name, author_display_name: u.display_name, author_is_bot: u.is_bot,
                score: score}) AS messages
