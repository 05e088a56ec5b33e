// Facts of one guild whose text matches a full-text query (the search box's words, joined by OR),
// best match first, closed facts included. $hits matches are read before the guild filter.
CALL db.index.fulltext.queryNodes('fact_text', $query, {limit: $hits}) YIELD node, score
WITH node AS f, score
WHERE f.guild_id = $guild_id
RETURN f AS fact
ORDER BY score DESC, f.uuid
LIMIT $limit
