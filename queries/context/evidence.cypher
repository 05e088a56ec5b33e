// The turns facts were drawn from, with their neighbours: for each fact of $uuids (best first), the
// messages of $channel_id it came from (FROM) and the message just before and just after each of them in
// its episode (the question a turn answers, the answer to it). Only messages of $guild_id and $channel_id
// before $at (a native datetime), so a reply quotes nothing its channel's readers could not see there.
// Each row: the fact's rank in $uuids, whether the message is the source itself, and the message as in
// context/conversation.cypher (datetimes as ISO strings). Sort keys are projected first, as in context/facts.cypher.
UNWIND range(0, size($uuids) - 1) AS rank
MATCH (f:Fact {uuid: $uuids[rank]})-[:FROM]->(m:Message)
WHERE f.guild_id = $guild_id AND m.guild_id = $guild_id AND m.channel_id = $channel_id AND m.created_at < $at
CALL (m) {
  RETURN m AS n, true AS source
  UNION
  MATCH (m)-[:IN_EPISODE]->(:Episode)<-[:IN_EPISODE]-(n:Message)
  WHERE n.created_at < m.created_at
  WITH n, n.created_at AS created, n.id AS id ORDER BY created DESC, id DESC LIMIT $span
  RETURN n, false AS source
  UNION
  MATCH (m)-[:IN_EPISODE]->(:Episode)<-[:IN_EPISODE]-(n:Message)
  WHERE n.created_at > m.created_at AND n.created_at < $at
  WITH n, n.created_at AS created, n.id AS id ORDER BY created, id LIMIT $span
  RETURN n, false AS source
}
WITH rank, source, n, n.created_at AS created, n.id AS id WHERE n.guild_id = $guild_id AND n.channel_id = $channel_id
MATCH (u:User)-[:SENT]->(n)
RETURN rank, source,
       {id: n.id, channel_id: n.channel_id, author_id: n.author_id, content: n.content,
        created_at: toString(n.created_at), reply_to_id: n.reply_to_id,
        author_name: u.name, author_display_name: coalesce(head([(u)-[mb:MEMBER_OF]->(:Guild {id: $guild_id}) | mb.display_name]), u.display_name),
        author_is_bot: u.is_bot} AS message
ORDER BY rank, created, id
