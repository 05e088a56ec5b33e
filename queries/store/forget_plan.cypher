// Forget-me, what goes (in $guild_id, or everywhere when null), read from the member's own node by its
// edges: facts about or mentioning them, those only they reported, the messages they sent and those
// messages' episodes, the episodes they took part in, the entities linked to them, and of those the ones
// that are theirs alone (owned by no other member: "Charlie's sister") with the facts about them.
MATCH (u:User {id: $user_id})
RETURN COLLECT {
         MATCH (u)<-[:ABOUT|MENTIONS]-(f:Fact) WHERE $guild_id IS NULL OR f.guild_id = $guild_id RETURN DISTINCT f.uuid
       } AS about,
       COLLECT {
         MATCH (u)<-[:REPORTED_BY]-(f:Fact)
         WHERE ($guild_id IS NULL OR f.guild_id = $guild_id)
           AND NOT EXISTS { MATCH (f)-[:REPORTED_BY]->(other:User) WHERE other.id <> $user_id }
         RETURN f.uuid
       } AS reported,
       COLLECT {
         MATCH (u)-[:SENT]->(m:Message)
         WHERE m.author_id = $user_id AND ($guild_id IS NULL OR m.guild_id = $guild_id)
         RETURN m.id
       } AS messages,
       COLLECT {
         MATCH (u)-[:SENT]->(m:Message)-[:IN_EPISODE]->(e:Episode)
         WHERE m.author_id = $user_id AND ($guild_id IS NULL OR m.guild_id = $guild_id)
         RETURN DISTINCT e.uuid
       } AS message_episodes,
       COLLECT { MATCH (u)-[:TOOK_PART_IN]->(e:Episode) RETURN e.uuid } AS took_part,
       COLLECT {
         MATCH (u)<-[:RELATED_TO]-(e:Entity) WHERE $guild_id IS NULL OR e.guild_id = $guild_id RETURN e.uuid
       } AS related,
       COLLECT {
         MATCH (u)<-[:RELATED_TO]-(e:Entity)
         WHERE ($guild_id IS NULL OR e.guild_id = $guild_id)
           AND NOT EXISTS { MATCH (e)-[:RELATED_TO]->(other:User) WHERE other.id <> $user_id }
         RETURN e.uuid
       } AS owned,
       COLLECT {
         MATCH (u)<-[:RELATED_TO]-(e:Entity)<-[:ABOUT]-(f:Fact)
         WHERE ($guild_id IS NULL OR e.guild_id = $guild_id)
           AND NOT EXISTS { MATCH (e)-[:RELATED_TO]->(other:User) WHERE other.id <> $user_id }
         RETURN DISTINCT f.uuid
       } AS owned_facts
