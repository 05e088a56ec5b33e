// "forget <what>": the facts a member may forget in one guild (history included): those about them,
// and those only they reported; with the entities each touches, to drop any left with no facts, and whether
// each may be shown where they asked (`shown`, graph/scope.py: the answer lists only those, and counts the rest;
// $channel_id null: everywhere; coalesce: `visible` holds a null parent, so a channel not in it compares null).
OPTIONAL MATCH (here:Channel {id: coalesce($channel_id, '')})
WITH COLLECT { MATCH (c:Channel) WHERE c.guild_id = $guild_id AND c.mode = 'shared' RETURN c.id } + [$channel_id, here.parent_id] AS visible
MATCH (u:User {id: $user_id})
CALL (u) {
  MATCH (u)<-[:ABOUT]-(f:Fact)
  RETURN f
  UNION
  MATCH (u)<-[:REPORTED_BY]-(f:Fact)
  WHERE NOT EXISTS { MATCH (f)-[:REPORTED_BY]->(other:User) WHERE other.id <> $user_id }
  RETURN f
}
WITH DISTINCT visible, f
WHERE f.guild_id = $guild_id
RETURN f.uuid AS uuid, f.text AS text,
       COLLECT { MATCH (f)-[:ABOUT|MENTIONS]->(e:Entity) RETURN e.uuid } AS entities,
       coalesce($channel_id IS NULL OR any(a IN f.audience WHERE a IN visible), false) AS shown
ORDER BY text, uuid
