// title: Who was present when a fact was said (graph)
// answers: The same as who_knows_what as a picture for Neo4j Browser: per fact, the paths fact -> episode <- person present, fact -> the person or entity it is about, and fact -> who reported it.
// params: guild_id (string, required) - the guild; fact_uuid (string, optional) - one fact; user_id (string, optional) - every fact about this Discord user (neither: every fact of the guild); limit (int, optional) - at most this many facts, most important first (default 25)
// Bots are left out of the people present. Closed facts carry the :Closed label, drawn grey by
// docker/grapevine.grass.
MATCH (f:Fact {guild_id: $guild_id})
WHERE ($fact_uuid IS NULL OR f.uuid = $fact_uuid)
  AND ($user_id IS NULL OR EXISTS { MATCH (f)-[:ABOUT]->(:User {id: $user_id}) })
WITH f
ORDER BY f.importance DESC, f.uuid
LIMIT coalesce($limit, 25)
MATCH present = (f)-[:EXTRACTED_FROM]->(ep:Episode {guild_id: $guild_id})<-[:TOOK_PART_IN]-(u:User)
WHERE NOT coalesce(u.is_bot, false)
WITH f, collect(present) AS present
ORDER BY f.importance DESC, f.uuid
RETURN f AS fact, present,
       COLLECT { MATCH about = (f)-[:ABOUT]->() RETURN about } AS about,
       COLLECT { MATCH reported = (f)-[:REPORTED_BY]->(:User) RETURN reported } AS reported
