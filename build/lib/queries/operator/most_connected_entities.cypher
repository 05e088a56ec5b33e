// title: Most connected entities
// answers: The guild's entities ranked by the facts that concern them (about or mentioning them), then by their relations.
// params: guild_id (string, required) - the guild; limit (int, optional) - how many rows (default 20)
// Facts are counted whether they still hold or not; relations in both directions.
MATCH (e:Entity {guild_id: $guild_id})
WITH e, COUNT { MATCH (e)<-[:ABOUT]-(:Fact) } AS about_facts,
     COUNT { MATCH (e)<-[:MENTIONS]-(:Fact) } AS mentioning_facts,
     COUNT { MATCH (e)-[:RELATED_TO]-() } AS relations
RETURN e.uuid AS uuid, e.name AS name, e.kind AS kind, about_facts + mentioning_facts AS facts,
       about_facts, mentioning_facts, relations, about_facts + mentioning_facts + relations AS connections
ORDER BY facts DESC, connections DESC, name
LIMIT coalesce($limit, 20)
