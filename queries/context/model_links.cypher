// One guild's entities, the RELATED_TO links that touch them (either way) and its channels, for the read model
// (graph/reads/fact_model.py): what a reply's second hop and linked facts walk, and what its channel scope reads
// (graph/scope.py: a channel's mode and a thread's parent); and the guild's change count (graph/changes.py), read
// before the facts (context/model_facts.cypher) so that a write between the two leaves the facts newer, never older.
OPTIONAL MATCH (g:Guild {id: $guild_id})
RETURN g.changes AS changes,
       COLLECT { MATCH (e:Entity) WHERE e.guild_id = $guild_id RETURN e.uuid } AS entities,
       COLLECT { MATCH (e:Entity)-[:RELATED_TO]->(n) WHERE e.guild_id = $guild_id
                 RETURN {source: e.uuid, target: coalesce(n.id, n.uuid)} } AS outgoing,
       COLLECT { MATCH (e:Entity)<-[:RELATED_TO]-(n) WHERE e.guild_id = $guild_id
                 RETURN {source: coalesce(n.id, n.uuid), target: e.uuid} } AS incoming,
       COLLECT { MATCH (c:Channel) WHERE c.guild_id = $guild_id
                 RETURN {id: c.id, mode: c.mode, parent_id: c.parent_id} } AS channels
