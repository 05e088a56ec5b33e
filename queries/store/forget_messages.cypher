// Forget-me, messages: those the user sent (in $guild_id, or everywhere); episodes left empty go too.
MATCH (u:User {id: $user_id})-[:SENT]->(m:Message)
WHERE m.author_id = $user_id AND ($guild_id IS NULL OR m.guild_id = $guild_id)
OPTIONAL MATCH (m)-[:IN_EPISODE]->(e:Episode)
WITH m, collect(e.key) AS episodes
DETACH DELETE m
WITH count(m) AS messages, reduce(all = [], x IN collect(episodes) | all + x) AS keys
CALL (keys) {
  UNWIND keys AS key
  MATCH (e:Episode {key: key})
  WHERE NOT EXISTS { MATCH (e)<-[:IN_EPISODE]-(:Message) }
  DETACH DELETE e
  RETURN count(e) AS episodes
}
RETURN messages, episodes
