// The second hop of a reply: facts about what the people and things a message names relate to ("where
// does Bob's sister work?": Bob, then the entities RELATED_TO him, either way, then the facts about them).
// Facts that only MENTION the named were tried too: on LoCoMo they added tokens and no evidence. The
// named are found as in context/facts.cypher: members mentioned or named ($mentioned_ids, $names), entities by their name keys ($keys); $skip_ids (the author,
// the bot) are not followed, since the author's own links are read there already. Only facts of
// $guild_id that hold at $now (a native datetime), most important and newest first, up to $limit,
// as items in the format of context/facts.cypher (read by graph.rows.reply_fact) with source 'hop'.
// Channel scope as in context/facts.cypher (null $channel_id: none): a fact only when one of its sources is
// in a 'shared' channel, in $channel_id or its parent, and only the reporters whose message is there (read from
// the fact's sources once, with sort keys projected before ORDER BY, as there).
OPTIONAL MATCH (here:Channel {id: coalesce($channel_id, '')})
WITH COLLECT { MATCH (c:Channel) WHERE c.guild_id = $guild_id AND c.mode = 'shared' RETURN c.id } + [$channel_id, here.parent_id] AS visible
CALL () {
  UNWIND $mentioned_ids AS id MATCH (p:User {id: id}) RETURN p AS n
  UNION
  UNWIND $names AS name MATCH (p:User {name_lower: name}) RETURN p AS n
  UNION
  UNWIND $names AS name MATCH (p:User {display_lower: name}) RETURN p AS n
  UNION
  UNWIND $keys AS key MATCH (e:Entity {name_key: key}) WHERE e.guild_id = $guild_id RETURN e AS n
}
WITH visible, n WHERE NOT coalesce(n.id, '') IN $skip_ids AND NOT coalesce(n.is_bot, false)
MATCH (n)-[:RELATED_TO]-(x:Entity)<-[:ABOUT]-(f:Fact)
WHERE x.guild_id = $guild_id
WITH DISTINCT visible, f
WHERE f.guild_id = $guild_id AND f.invalid_at IS NULL AND f.expired_at IS NULL
  AND (f.expires_at IS NULL OR f.expires_at > $now)
WITH visible, f, [(f)-[:FROM]->(m:Message) | [m.id, m.channel_id]] AS sources
WITH f, sources, [s IN sources WHERE s[1] IN visible | s[0]] AS shown
WHERE $channel_id IS NULL OR size(sources) = 0 OR size(shown) > 0
WITH f, shown, f.importance AS i, f.valid_at AS v, f.uuid AS u ORDER BY i DESC, v DESC, u LIMIT $limit
RETURN collect(['hop', null, f.uuid, f.text, f.category, f.importance, f.confidence, toString(f.valid_at),
                [(f)-[:ABOUT]->(s) | [coalesce(s.id, s.uuid),
                  coalesce(head([(s)-[mb:MEMBER_OF]->(:Guild {id: $guild_id}) | mb.display_name]), s.display_name, s.name)]],
                [(f)-[r:REPORTED_BY]->(rep:User) WHERE $channel_id IS NULL OR r.message_id = '' OR r.message_id IN shown | [rep.id,
                  coalesce(head([(rep)-[mb:MEMBER_OF]->(:Guild {id: $guild_id}) | mb.display_name]), rep.display_name, rep.name),
                  toString(r.at)]]]) AS facts
