// Every fact a reply draws on, in one read and one row (a list: one Bolt message, not one per fact).
// Sources: facts about the author; about the members the message mentions or names; about or mentioning the
// entities it names (by normalised name or a full-text match of entity names); about the entities linked to the
// author (Charlie's sister); and the second hop: facts about the entities related to the members and
// entities the message names ("where does Bob's sister work?": Bob, then the entities RELATED_TO him, either
// way, then the facts about them; facts that only MENTION them add tokens and no evidence).
// Only facts of $guild_id that hold at $now (a native datetime: comparing against a parameter is cheaper than
// parsing one per row). A named member's facts that hold a word of the message other than the named members' names
// ($names are word characters only, so the pattern is a plain alternation) come first in their pool, then the most
// important and newest: what the question is about, among a member's hundreds of facts.
// No full-text search of facts' text: ArcadeDB scores every posting of each word before it keeps the best hits,
// so its cost grows with the guild. Facts whose words match the message come through the channel's recalled
// messages they were drawn from, and with embeddings through the nearest facts (recall/gather.py). The
// entity-name search reads the guild's $hits best matches (its guild_term a required term of the search).
// Each item is one fact of one source, a map read by graph.rows.reply_fact:
//   {source, uuid, text, category, importance, confidence, valid_at,
//    about: [{id: user id or entity uuid, name}], reporters: [{id: user id, name, at}], sources: [message id],
//    shown: [{id: message id, channel_id}] of the sources $channel_id may show (its links)}
// (sources: every message the fact was drawn from, visible here or not: a reply leaves out a recalled message whose
// fact it keeps, RecallTuning.redundant)
// Subjects and reporters by pattern comprehension rather than OPTIONAL MATCH and collect: the same rows with no
// grouping. Datetimes come back as ISO strings. A member's name is the one they use in this guild (their
// membership's, see store/upsert_users.cypher).
// Channel scope (null $channel_id: no scope, as for operators), as every scoped read does it (graph/scope.py):
// `visible` holds the guild's 'shared' channels, $channel_id and its parent, and a fact is kept only when one of
// the channels of its audience (f.audience, stored when it is written) is among them; of its reporters only those
// whose message is there. A report's message is one of its fact's sources (store/write_reports.cypher), so the
// fact's FROM messages, read once per kept fact by a pattern comprehension, give both its links and its reporters.
// Sort keys are projected before each ORDER BY: ArcadeDB evaluates the keys at every comparison, and a
// property read there costs more than a variable's (a member with thousands of facts sorts them all).
OPTIONAL MATCH (here:Channel {id: coalesce($channel_id, '')})
WITH COLLECT { MATCH (c:Channel) WHERE c.guild_id = $guild_id AND c.mode = 'shared' RETURN c.id } + [$channel_id, here.parent_id] AS visible
CALL () {
  MATCH (:User {id: $author_id})<-[:ABOUT]-(f:Fact)
  WHERE f.guild_id = $guild_id AND (f.invalid_at IS NULL OR f.invalid_at > $now) AND (f.expired_at IS NULL OR f.expired_at > $now)
    AND (f.expires_at IS NULL OR f.expires_at > $now)
  WITH f, f.importance AS i, f.valid_at AS v, f.uuid AS u ORDER BY i DESC, v DESC, u LIMIT $author_limit
  RETURN 'author' AS source, f
  UNION ALL
  CALL () {
    UNWIND $mentioned_ids AS id MATCH (p:User {id: id}) RETURN p
    UNION
    UNWIND $names AS name MATCH (p:User {name_lower: name}) RETURN p
    UNION
    UNWIND $names AS name MATCH (p:User {display_lower: name}) RETURN p
  }
  WITH p WHERE NOT p.id IN $skip_ids AND NOT coalesce(p.is_bot, false)
  WITH collect(DISTINCT p) AS people
  WITH people, [w IN $names WHERE NONE(p IN people WHERE w = p.name_lower OR w = p.display_lower)] AS topical
  WITH people, CASE WHEN size(topical) = 0 THEN null
                    ELSE '(?isU).*\\b(?:' + reduce(s = head(topical), w IN tail(topical) | s + '|' + w) + ')\\b.*' END AS pattern
  UNWIND people AS p
  MATCH (p)<-[:ABOUT]-(f:Fact)
  WHERE f.guild_id = $guild_id AND (f.invalid_at IS NULL OR f.invalid_at > $now) AND (f.expired_at IS NULL OR f.expired_at > $now)
    AND (f.expires_at IS NULL OR f.expires_at > $now)
  WITH DISTINCT f, pattern
  WITH f, CASE WHEN pattern IS NOT NULL AND f.text =~ pattern THEN 1 ELSE 0 END AS hit,
       f.importance AS i, f.valid_at AS v, f.uuid AS u
  ORDER BY hit DESC, i DESC, v DESC, u LIMIT $pool
  RETURN 'people' AS source, f
  UNION ALL
  CALL () {
    UNWIND $keys AS key
    MATCH (e:Entity {name_key: key}) WHERE e.guild_id = $guild_id
    RETURN e
    UNION
    WITH $query AS query WHERE query <> ''
    CALL db.index.fulltext.queryNodes('entity_names', '+guild_term:g' + replace($guild_id, ':', '') + ' +(name:(' + query + ') alias_text:(' + query + '))',
                                      {limit: $hits}) YIELD node, score
    WITH node AS e, score WHERE e.guild_id = $guild_id
    WITH e, max(score) AS score ORDER BY score DESC LIMIT $limit
    RETURN e
  }
  MATCH (e)<-[:ABOUT|MENTIONS]-(f:Fact)
  WHERE f.guild_id = $guild_id AND (f.invalid_at IS NULL OR f.invalid_at > $now) AND (f.expired_at IS NULL OR f.expired_at > $now)
    AND (f.expires_at IS NULL OR f.expires_at > $now)
  WITH DISTINCT f, f.importance AS i, f.valid_at AS v, f.uuid AS u ORDER BY i DESC, v DESC, u LIMIT $pool
  RETURN 'entities' AS source, f
  UNION ALL
  MATCH (:User {id: $author_id})<-[:RELATED_TO]-(e:Entity)<-[:ABOUT]-(f:Fact)
  WHERE e.guild_id = $guild_id AND f.guild_id = $guild_id AND (f.invalid_at IS NULL OR f.invalid_at > $now) AND (f.expired_at IS NULL OR f.expired_at > $now)
    AND (f.expires_at IS NULL OR f.expires_at > $now)
  WITH DISTINCT f, f.importance AS i, f.valid_at AS v, f.uuid AS u ORDER BY i DESC, v DESC, u LIMIT $limit
  RETURN 'linked' AS source, f
  UNION ALL
  CALL () {
    UNWIND $mentioned_ids AS id MATCH (p:User {id: id}) RETURN p AS n
    UNION
    UNWIND $names AS name MATCH (p:User {name_lower: name}) RETURN p AS n
    UNION
    UNWIND $names AS name MATCH (p:User {display_lower: name}) RETURN p AS n
    UNION
    UNWIND $keys AS key MATCH (e:Entity {name_key: key}) WHERE e.guild_id = $guild_id RETURN e AS n
  }
  WITH n WHERE NOT coalesce(n.id, '') IN $skip_ids AND NOT coalesce(n.is_bot, false)
  MATCH (n)-[:RELATED_TO]-(x:Entity)<-[:ABOUT]-(f:Fact)
  WHERE x.guild_id = $guild_id AND f.guild_id = $guild_id AND (f.invalid_at IS NULL OR f.invalid_at > $now) AND (f.expired_at IS NULL OR f.expired_at > $now)
    AND (f.expires_at IS NULL OR f.expires_at > $now)
  WITH DISTINCT f, f.importance AS i, f.valid_at AS v, f.uuid AS u ORDER BY i DESC, v DESC, u LIMIT $hop_limit
  RETURN 'hop' AS source, f
}
WITH visible, source, f WHERE $channel_id IS NULL OR any(a IN f.audience WHERE a IN visible)
WITH visible, source, f, [(f)-[:FROM]->(m:Message) | {id: m.id, channel_id: m.channel_id}] AS sources
WITH source, f, sources, [s IN sources WHERE s.channel_id IN visible | s.id] AS shown
RETURN collect({source: source, uuid: f.uuid, text: f.text, category: f.category, importance: f.importance,
                 confidence: f.confidence, valid_at: toString(f.valid_at),
                 about: [(f)-[:ABOUT]->(s) | {id: coalesce(s.id, s.uuid),
                   name: coalesce(head([(s)-[mb:MEMBER_OF]->(:Guild {id: $guild_id}) | mb.display_name]), s.display_name, s.name)}],
                 reporters: [(f)-[r:REPORTED_BY]->(rep:User) WHERE $channel_id IS NULL OR r.message_id = '' OR r.message_id IN shown | {id: rep.id,
                   name: coalesce(head([(rep)-[mb:MEMBER_OF]->(:Guild {id: $guild_id}) | mb.display_name]), rep.display_name, rep.name),
                   at: toString(r.at)}],
                 sources: [s IN sources | s.id], shown: [s IN sources WHERE s.id IN shown]}) AS facts
