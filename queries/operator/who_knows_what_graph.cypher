// title: Who was present when a fact was said (graph)
// answers: The same as who_knows_what, as paths fact -> episode <- person (and fact -> subject) for Neo4j Browser's graph view.
// params: guild_id (string, required) - the guild; fact_uuid (string, optional) - one fact; user_id (string, optional) - every fact about this Discord user (give fact_uuid or user_id)
MATCH (f:Fact {guild_id: $guild_id})
WHERE ($fact_uuid IS NOT NULL OR $user_id IS NOT NULL)
  AND ($fact_uuid IS NULL OR f.uuid = $fact_uuid)
  AND ($user_id IS NULL OR EXISTS { MATCH (f)-[:ABOUT]->(:User {id: $user_id}) })
MATCH present = (f)-[:EXTRACTED_FROM]->(ep:Episode {guild_id: $guild_id})<-[:TOOK_PART_IN]-(u:User)
WHERE NOT coalesce(u.is_bot, false)
OPTIONAL MATCH about = (f)-[:ABOUT]->()
RETURN present, about
