// The facts drawn from messages a reply recalled ($ids: the channel's earlier messages holding its words, best
// first): the bounded way a reply finds facts by their words (a full-text search of facts' text scores every
// posting of each word on ArcadeDB and grew with the guild: issue 20). Only facts of $guild_id that hold at $now
// (a native datetime), up to $limit, in the format of context/facts.cypher (read by graph.rows.reply_fact) with
// source 'matched'. Channel scope as there: a fact only when one of its sources is in a 'shared' channel, in
// $channel_id or its parent, and only the reporters whose message is there.
OPTIONAL MATCH (here:Channel {id: $channel_id})
WITH COLLECT { MATCH (c:Channel) WHERE c.guild_id = $guild_id AND c.mode = 'shared' RETURN c.id } + [$channel_id, here.parent_id] AS visible
UNWIND range(0, size($ids) - 1) AS rank
MATCH (:Message {id: $ids[rank]})<-[:FROM]-(f:Fact)
WHERE f.guild_id = $guild_id AND f.invalid_at IS NULL AND f.expired_at IS NULL
  AND (f.expires_at IS NULL OR f.expires_at > $now)
WITH visible, f, min(rank) AS rank
WITH visible, f, rank, f.uuid AS u ORDER BY rank, u LIMIT $limit
WITH f, [(f)-[:FROM]->(m:Message) | [m.id, m.channel_id]] AS sources, visible
WITH f, sources, [s IN sources WHERE s[1] IN visible | s[0]] AS shown
WHERE size(shown) > 0
RETURN collect(['matched', null, f.uuid, f.text, f.category, f.importance, f.confidence, toString(f.valid_at),
                [(f)-[:ABOUT]->(s) | [coalesce(s.id, s.uuid),
                  coalesce(head([(s)-[mb:MEMBER_OF]->(:Guild {id: $guild_id}) | mb.display_name]), s.display_name, s.name)]],
                [(f)-[r:REPORTED_BY]->(rep:User) WHERE r.message_id = '' OR r.message_id IN shown | [rep.id,
                  coalesce(head([(rep)-[mb:MEMBER_OF]->(:Guild {id: $guild_id}) | mb.display_name]), rep.display_name, rep.name),
                  toString(r.at)]],
                [s IN sources | s[0]]]) AS facts
