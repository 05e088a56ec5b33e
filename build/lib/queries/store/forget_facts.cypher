// Forget-me, facts: those about the user, and those only the user reported (in $guild_id, or all
// guilds when null). Returns the entities those facts touched, to delete any left with no facts.
MATCH (u:User {id: $user_id})
CALL (u) {
  MATCH (u)<-[:ABOUT]-(f:Fact)
  RETURN f
  UNION
  MATCH (u)<-[:REPORTED_BY]-(f:Fact)
  WHERE NOT EXISTS { MATCH (f)-[:REPORTED_BY]->(other:User) WHERE other.id <> $user_id }
  RETURN f
  UNION
  MATCH (f:Fact) WHERE f.uuid IN $also_uuids
  RETURN f
}
WITH f
WHERE $guild_id IS NULL OR f.guild_id = $guild_id
OPTIONAL MATCH (f)-[:ABOUT|MENTIONS]->(e:Entity)
WITH f, collect(e.uuid) AS touched
DETACH DELETE f
RETURN count(f) AS facts, reduce(all = [], t IN collect(touched) | all + t) AS touched
