// The passages of a reply's recalled matches: for each message of $ids (the matches, best first), the $reach
// messages just before and the $reach just after it in its episode (its window), the turns a chunk retriever
// would read with it. Scope as context/second_round.cypher's evidence turns: only messages of $guild_id and
// $channel_id sent before $now (a native datetime), each with its author, so a reply quotes nothing its channel's
// readers could not see there and nothing said after it. Each item: `near` (its match's id), `side` (-1 before it, 1 after) and the message as in
// context/conversation.cypher (datetimes as ISO strings), in match and then time order.
UNWIND range(0, size($ids) - 1) AS rank
MATCH (m:Message {id: $ids[rank]})
WHERE m.guild_id = $guild_id AND m.channel_id = $channel_id AND m.created_at < $now
CALL (m) {
  MATCH (m)-[:IN_EPISODE]->(:Episode)<-[:IN_EPISODE]-(n:Message)
  WHERE n.created_at < m.created_at
  WITH n, n.created_at AS created, n.id AS id ORDER BY created DESC, id DESC LIMIT $reach
  RETURN n, -1 AS side
  UNION
  MATCH (m)-[:IN_EPISODE]->(:Episode)<-[:IN_EPISODE]-(n:Message)
  WHERE n.created_at > m.created_at AND n.created_at < $now
  WITH n, n.created_at AS created, n.id AS id ORDER BY created, id LIMIT $reach
  RETURN n, 1 AS side
}
WITH rank, m, n, side, n.created_at AS created, n.id AS id WHERE n.guild_id = $guild_id AND n.channel_id = $channel_id
MATCH (u:User)-[:SENT]->(n)
WITH rank, m, n, side, u, created, id ORDER BY rank, created, id
RETURN collect({near: m.id, side: side,
                id: n.id, channel_id: n.channel_id, author_id: n.author_id, content: n.content,
                created_at: toString(n.created_at), reply_to_id: n.reply_to_id,
                author_name: u.name, author_display_name: coalesce(head([(u)-[mb:MEMBER_OF]->(:Guild {id: $guild_id}) | mb.display_name]), u.display_name),
                author_is_bot: u.is_bot}) AS turns
