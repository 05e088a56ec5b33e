// One member's history in a guild, for the explorer's history stepper: every fact about them,
// open or closed (oldest first, at most $limit), and the supersessions between those facts, as
// paths. No row unless the member wrote in this guild or one of its facts concerns them.
MATCH (u:User {id: $key})
WHERE EXISTS { MATCH (u)-[:SENT]->(m:Message) WHERE m.guild_id = $guild_id }
   OR EXISTS { MATCH (u)<-[:ABOUT|REPORTED_BY|MENTIONS]-(f:Fact) WHERE f.guild_id = $guild_id }
RETURN u AS node,
       COLLECT { MATCH p = (u)<-[:ABOUT]-(f:Fact) WHERE f.guild_id = $guild_id
                 RETURN p ORDER BY f.valid_at, f.uuid LIMIT $limit } AS facts,
       COLLECT { MATCH p = (u)<-[:ABOUT]-(newer:Fact)-[:SUPERSEDES]->(old:Fact)
                 WHERE newer.guild_id = $guild_id AND old.guild_id = $guild_id RETURN p LIMIT $limit } AS supersessions
