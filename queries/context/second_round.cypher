// A reply's second round of reads, in one statement: what the first round's results point to.
// - matched: the facts drawn from messages the reply recalled ($ids: the channel's earlier messages holding its
//   words, best first), the bounded way a reply finds facts by their words (a full-text search of facts' text
//   scores every posting of each word on ArcadeDB and grows with the guild). Only facts of $guild_id
//   that hold at $now (a native datetime), up to $limit, in the format of context/facts.cypher (read by
//   graph.rows.reply_fact) with source 'matched'; channel scope as there (a fact only when a channel of its
//   stored audience is 'shared', $channel_id or its parent, and only the reporters whose message is there).
// - evidence: the turns the best facts were drawn from, with their neighbours: for each fact of $uuids (best
//   first), the messages of $channel_id it came from (FROM) and the $span messages just before and just after
//   each of them in its episode (the question a turn answers, the answer to it). Only messages of $guild_id and
//   $channel_id before $now, so a reply quotes nothing its channel's readers could not see there. Each item:
//   [the fact's rank in $uuids, whether the message is the source itself, the message as in
//   context/conversation.cypher (datetimes as ISO strings)], in rank and then time order.
// Sort keys are projected first, as in context/facts.cypher.
CALL () {
  OPTIONAL MATCH (here:Channel {id: $channel_id})
  WITH COLLECT { MATCH (c:Channel) WHERE c.guild_id = $guild_id AND c.mode = 'shared' RETURN c.id } + [$channel_id, here.parent_id] AS visible
  UNWIND range(0, size($ids) - 1) AS rank
  MATCH (:Message {id: $ids[rank]})<-[:FROM]-(f:Fact)
  WHERE f.guild_id = $guild_id AND (f.invalid_at IS NULL OR f.invalid_at > $now) AND (f.expired_at IS NULL OR f.expired_at > $now)
    AND (f.expires_at IS NULL OR f.expires_at > $now)
  WITH visible, f, min(rank) AS rank
  WHERE any(a IN f.audience WHERE a IN visible)
  WITH visible, f, rank, f.uuid AS u ORDER BY rank, u LIMIT $limit
  WITH f, [(f)-[:FROM]->(m:Message) | {id: m.id, channel_id: m.channel_id}] AS sources, visible
  WITH f, sources, [s IN sources WHERE s.channel_id IN visible | s.id] AS shown
  RETURN collect({source: 'matched', uuid: f.uuid, text: f.text, category: f.category, importance: f.importance,
                  confidence: f.confidence, valid_at: toString(f.valid_at),
                  about: [(f)-[:ABOUT]->(s) | {id: coalesce(s.id, s.uuid),
                    name: coalesce(head([(s)-[mb:MEMBER_OF]->(:Guild {id: $guild_id}) | mb.display_name]), s.display_name, s.name)}],
                  reporters: [(f)-[r:REPORTED_BY]->(rep:User) WHERE r.message_id = '' OR r.message_id IN shown | {id: rep.id,
                    name: coalesce(head([(rep)-[mb:MEMBER_OF]->(:Guild {id: $guild_id}) | mb.display_name]), rep.display_name, rep.name),
                    at: toString(r.at)}],
                  sources: [s IN sources | s.id], shown: [s IN sources WHERE s.id IN shown]}) AS matched
}
CALL () {
  UNWIND range(0, size($uuids) - 1) AS rank
  MATCH (f:Fact {uuid: $uuids[rank]})-[:FROM]->(m:Message)
  WHERE f.guild_id = $guild_id AND m.guild_id = $guild_id AND m.channel_id = $channel_id AND m.created_at < $now
  CALL (m) {
    RETURN m AS n, true AS source
    UNION
    MATCH (m)-[:IN_EPISODE]->(:Episode)<-[:IN_EPISODE]-(n:Message)
    WHERE n.created_at < m.created_at
    WITH n, n.created_at AS created, n.id AS id ORDER BY created DESC, id DESC LIMIT $span
    RETURN n, false AS source
    UNION
    MATCH (m)-[:IN_EPISODE]->(:Episode)<-[:IN_EPISODE]-(n:Message)
    WHERE n.created_at > m.created_at AND n.created_at < $now
    WITH n, n.created_at AS created, n.id AS id ORDER BY created, id LIMIT $span
    RETURN n, false AS source
  }
  WITH rank, source, n, n.created_at AS created, n.id AS id WHERE n.guild_id = $guild_id AND n.channel_id = $channel_id
  MATCH (u:User)-[:SENT]->(n)
  WITH rank, source, n, u, created, id ORDER BY rank, created, id
  RETURN collect({rank: rank, is_source: source,
                  id: n.id, channel_id: n.channel_id, author_id: n.author_id, content: n.content,
                  created_at: toString(n.created_at), reply_to_id: n.reply_to_id,
                  author_name: u.name, author_display_name: coalesce(head([(u)-[mb:MEMBER_OF]->(:Guild {id: $guild_id}) | mb.display_name]), u.display_name),
                  author_is_bot: u.is_bot}) AS evidence
}
RETURN matched, evidence
