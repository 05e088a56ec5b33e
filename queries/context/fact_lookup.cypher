// What a reply's fact read asks the engine when the read model answers it (graph/reads/fact_model.py): the
// guild's change count (graph/changes.py), the members the message mentions or names (by casefolded account or
// display name; not $skip_ids, no bot), the guild's entities named by their keys, and the $limit best entities
// of the full-text search of entity names (its guild_term a required term, as context/facts.cypher does it),
// and the parent of $channel_id (its channel scope, graph/scope.py).
CALL () {
  UNWIND $mentioned_ids AS id MATCH (p:User {id: id}) RETURN p
  UNION
  UNWIND $names AS name MATCH (p:User {name_lower: name}) RETURN p
  UNION
  UNWIND $names AS name MATCH (p:User {display_lower: name}) RETURN p
}
WITH p WHERE NOT p.id IN $skip_ids AND NOT coalesce(p.is_bot, false)
WITH collect(DISTINCT {id: p.id, name_lower: p.name_lower, display_lower: p.display_lower}) AS people
CALL () {
  UNWIND $keys AS key
  MATCH (e:Entity {name_key: key}) WHERE e.guild_id = $guild_id
  RETURN collect(DISTINCT e.uuid) AS keyed
}
CALL () {
  WITH $query AS query WHERE query <> ''
  CALL db.index.fulltext.queryNodes('entity_names', '+guild_term:g' + replace($guild_id, ':', '') + ' +(name:(' + query + ') alias_text:(' + query + '))',
                                    {limit: $hits}) YIELD node, score
  WITH node AS e, score WHERE e.guild_id = $guild_id
  WITH e, max(score) AS score ORDER BY score DESC LIMIT $limit
  RETURN collect(e.uuid) AS searched
}
OPTIONAL MATCH (g:Guild {id: $guild_id})
OPTIONAL MATCH (here:Channel {id: coalesce($channel_id, '')})
RETURN people, keyed, searched, g.changes AS changes, here.parent_id AS parent
