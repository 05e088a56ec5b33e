// Entities of one guild whose name or aliases match a full-text query (the guild's guild_term a required term).
CALL db.index.fulltext.queryNodes('entity_names', '+guild_term:g' + replace($guild_id, ':', '') + ' +(name:(' + $query + ') alias_text:(' + $query + '))')
YIELD node, score
WITH node AS e, score
WHERE e.guild_id = $guild_id
WITH e, max(score) AS score
ORDER BY score DESC
LIMIT $limit
RETURN e.uuid AS uuid, e.name AS name, e.kind AS kind, e.aliases AS aliases, score
