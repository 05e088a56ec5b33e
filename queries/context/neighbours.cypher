// The turns around messages a reply recalled: for each message of $ids (best first), the message just before
// and just after it in its episode, up to $span each side (the question a matching turn answers, the answer to
// it). Only messages of $guild_id and $channel_id before $at (a native datetime), as in context/evidence.cypher.
// Each row: the recalled message's rank in $ids and the neighbour as in context/conversation.cypher (datetimes as
// ISO strings). Sort keys are projected first, as in context/facts.cypher.
UNWIND range(0, size($ids) - 1) AS rank
MATCH (m:Message {id: $ids[rank]})
WHERE m.guild_id = $guild_id AND m.channel_id = $channel_id AND m.created_at < $at
CALL (m) {
  MATCH (m)-[:IN_EPISODE]->(:Episode)<-[:IN_EPISODE]-(n:Message)
  WHERE n.created_at < m.created_at
  WITH n, n.created_at AS created, n.id AS id ORDER BY created DESC, id DESC LIMIT $span
  RETURN n
  UNION
  MATCH (m)-[:IN_EPISODE]->(:Episode)<-[:IN_EPISODE]-(n:Message)
  WHERE n.created_at > m.created_at AND n.created_at < $at
  WITH n, n.created_at AS created, n.id AS id ORDER BY created, id LIMIT $span
  RETURN n
}
WITH rank, n, n.created_at AS created, n.id AS id WHERE n.guild_id = $guild_id AND n.channel_id = $channel_id
MATCH (u:User)-[:SENT]->(n)
RETURN rank,
       {id: n.id, channel_id: n.channel_id, author_id: n.author_id, content: n.content,
        created_at: toString(n.created_at), reply_to_id: n.reply_to_id,
        author_name: u.name, author_display_name: coalesce(head([(u)-[mb:MEMBER_OF]->(:Guild {id: $guild_id}) | mb.display_name]), u.display_name),
        author_is_bot: u.is_bot} AS message
ORDER BY rank, created, id
