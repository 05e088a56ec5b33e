// Facts of one guild whose text matches a full-text query (the search box's words, joined by OR),
// best match first, closed facts included: $hits best matches of the guild (its guild_term a required term).
CALL db.index.fulltext.queryNodes('fact_text', '+guild_term:g' + replace($guild_id, ':', '') + ' +text:(' + $query + ')', {limit: $hits}) YIELD node, score
WITH node AS f, score
WHERE f.guild_id = $guild_id
RETURN f AS fact
ORDER BY score DESC, f.uuid
LIMIT $limit
