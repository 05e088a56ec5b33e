// title: Who was present when a fact was said
// answers: For one fact, every fact about a user, or every fact of the guild, the people who took part in the episodes the fact was extracted from (and so may know it).
// params: guild_id (string, required) - the guild; fact_uuid (string, optional) - one fact; user_id (string, optional) - every fact about this Discord user (neither: every fact of the guild)
// Bots are left out. first_present_at is the start of the earliest such episode.
MATCH (f:Fact {guild_id: $guild_id})
WHERE ($fact_uuid IS NULL OR f.uuid = $fact_uuid)
  AND ($user_id IS NULL OR EXISTS { MATCH (f)-[:ABOUT]->(:User {id: $user_id}) })
MATCH (f)-[:EXTRACTED_FROM]->(ep:Episode {guild_id: $guild_id})<-[:TOOK_PART_IN]-(u:User)
WHERE NOT coalesce(u.is_bot, false)
RETURN f.uuid AS fact_uuid, f.text AS fact, u.id AS user_id, coalesce(u.display_name, u.name) AS user,
       min(ep.started_at) AS first_present_at, count(DISTINCT ep) AS episodes
ORDER BY fact, first_present_at, user
