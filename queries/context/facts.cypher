// Every fact a reply draws on, in one read and one row (a list: one Bolt message, not one per fact),
// each item one fact of one source: facts about the author;
// about the members the message mentions or names; about the entities it names (by normalised name
// or full-text match); about the entities linked to the author (Charlie's sister); and facts whose
// text matches the message. Only facts of $guild_id that hold at $now (a native datetime: comparing
// against a parameter is cheaper than parsing one per row); datetimes come back as ISO strings.
// Full-text searches read their $hits best matches (before the guild filter): common words match
// thousands of facts, and reading them all made the slowest replies several times slower.
CALL () {
  MATCH (:User {id: $author_id})<-[:ABOUT]-(f:Fact)
  WHERE f.guild_id = $guild_id AND f.invalid_at IS NULL AND f.expired_at IS NULL
    AND (f.expires_at IS NULL OR f.expires_at > $now)
  WITH f ORDER BY f.importance DESC, f.valid_at DESC, f.uuid LIMIT $author_limit
  RETURN 'author' AS source, f, null AS score
  UNION ALL
  CALL () {
    UNWIND $mentioned_ids AS id MATCH (p:User {id: id}) RETURN p
    UNION
    UNWIND $names AS name MATCH (p:User {name_lower: name}) RETURN p
    UNION
    UNWIND $names AS name MATCH (p:User {display_lower: name}) RETURN p
  }
  WITH p WHERE NOT p.id IN $skip_ids AND NOT coalesce(p.is_bot, false)
  MATCH (p)<-[:ABOUT]-(f:Fact)
  WHERE f.guild_id = $guild_id AND f.invalid_at IS NULL AND f.expired_at IS NULL
    AND (f.expires_at IS NULL OR f.expires_at > $now)
  WITH DISTINCT f ORDER BY f.importance DESC, f.valid_at DESC, f.uuid LIMIT $pool
  RETURN 'people' AS source, f, null AS score
  UNION ALL
  CALL () {
    UNWIND $keys AS key
    MATCH (e:Entity {name_key: key}) WHERE e.guild_id = $guild_id
    RETURN e
    UNION
    WITH $query AS query WHERE query <> ''
    CALL db.index.fulltext.queryNodes('entity_names', query, {limit: $hits}) YIELD node, score
    WITH node AS e, score WHERE e.guild_id = $guild_id
    WITH e, max(score) AS score ORDER BY score DESC LIMIT $limit
    RETURN e
  }
  MATCH (e)<-[:ABOUT]-(f:Fact)
  WHERE f.guild_id = $guild_id AND f.invalid_at IS NULL AND f.expired_at IS NULL
    AND (f.expires_at IS NULL OR f.expires_at > $now)
  WITH DISTINCT f ORDER BY f.importance DESC, f.valid_at DESC, f.uuid LIMIT $pool
  RETURN 'entities' AS source, f, null AS score
  UNION ALL
  MATCH (:User {id: $author_id})<-[:RELATED_TO]-(e:Entity)<-[:ABOUT]-(f:Fact)
  WHERE e.guild_id = $guild_id AND f.guild_id = $guild_id AND f.invalid_at IS NULL AND f.expired_at IS NULL
    AND (f.expires_at IS NULL OR f.expires_at > $now)
  WITH DISTINCT f ORDER BY f.importance DESC, f.valid_at DESC, f.uuid LIMIT $limit
  RETURN 'linked' AS source, f, null AS score
  UNION ALL
  WITH $query AS query WHERE query <> ''
  CALL db.index.fulltext.queryNodes('fact_text', query, {limit: $hits}) YIELD node, score
  WITH node AS f, score
  WHERE f.guild_id = $guild_id AND f.invalid_at IS NULL AND f.expired_at IS NULL
    AND (f.expires_at IS NULL OR f.expires_at > $now)
  WITH f, max(score) AS score ORDER BY score DESC LIMIT $limit
  RETURN 'text' AS source, f, score
}
OPTIONAL MATCH (f)-[r:REPORTED_BY]->(rep:User)
WITH source, f, score, collect(CASE WHEN rep IS NULL THEN null ELSE [rep.id, coalesce(rep.display_name, rep.name), toString(r.at)] END) AS reporters
OPTIONAL MATCH (f)-[:ABOUT]->(s)
WITH source, f, score, reporters, collect(CASE WHEN s IS NULL THEN null ELSE [coalesce(s.id, s.uuid), coalesce(s.display_name, s.name)] END) AS about
RETURN collect({source: source, score: score, uuid: f.uuid, text: f.text, category: f.category,
                importance: f.importance, confidence: f.confidence, valid_at: toString(f.valid_at),
                expires_at: toString(f.expires_at), created_at: toString(f.created_at), about: about,
                reporters: reporters}) AS facts
