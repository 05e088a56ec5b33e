// A quiet channel's older messages matching a reply: context/conversation.cypher recalls only among the channel's
// messages of its last days (graph.store.RECALL_SPAN); this read looks further back, through the channel's
// windows rather than its messages: the messages of its last $episodes episodes that ended before $before (a
// native datetime), so the rows read are bounded by the windows' size, never by the channel's history.
// As there, a message holds any word of $words (one Java regex each, $pattern any of them), most words first,
// then newest, up to $recall, with the count as its score; only messages of $guild_id and $channel_id.
// Datetimes come back as ISO strings.
MATCH (e:Episode {channel_id: $channel_id})
WHERE e.guild_id = $guild_id AND e.ended_at < $before
WITH e ORDER BY e.ended_at DESC LIMIT $episodes
MATCH (m:Message)-[:IN_EPISODE]->(e)
WITH m WHERE m.guild_id = $guild_id AND m.channel_id = $channel_id AND m.created_at < $before AND m.content =~ $pattern
WITH m, size([word IN $words WHERE m.content =~ word]) AS score
ORDER BY score DESC, m.created_at DESC, m.id
LIMIT $recall
MATCH (u:User)-[:SENT]->(m)
RETURN collect({id: m.id, channel_id: m.channel_id, author_id: m.author_id, content: m.content,
                created_at: toString(m.created_at), reply_to_id: m.reply_to_id,
                author_name: u.name, author_display_name: coalesce(head([(u)-[mb:MEMBER_OF]->(:Guild {id: m.guild_id}) | mb.display_name]), u.display_name), author_is_bot: u.is_bot,
                score: score}) AS recalled
