// "forget <what>": the facts a member may forget in one guild (history included): those about them,
// and those only they reported; with the entities each touches, to drop any left with no facts.
MATCH (u:User {id: $user_id})
CALL (u) {
  MATCH (u)<-[:ABOUT]-(f:Fact)
  RETURN f
  UNION
  MATCH (u)<-[:REPORTED_BY]-(f:Fact)
  WHERE NOT EXISTS { MATCH (f)-[:REPORTED_BY]->(other:User) WHERE other.id <> $user_id }
  RETURN f
}
WITH DISTINCT f
WHERE f.guild_id = $guild_id
RETURN f.uuid AS uuid, f.text AS text,
       COLLECT { MATCH (f)-[:ABOUT|MENTIONS]->(e:Entity) RETURN e.uuid } AS entities
ORDER BY text, uuid
