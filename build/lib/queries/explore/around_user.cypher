// Around one member in a guild, for the explorer: the guild's facts about them, those they
// reported and those that mention them (newest first), the entities related to them, and the
// episodes they took part in (latest first). Each group is {paths, total}; at most $limit paths per
// group. Accounts are shared by guilds: no row unless the member wrote in this guild or one of its
// facts concerns them, and nothing of another guild is read.
MATCH (u:User {id: $key})
WHERE EXISTS { MATCH (u)-[:SENT]->(m:Message) WHERE m.guild_id = $guild_id }
   OR EXISTS { MATCH (u)<-[:ABOUT|REPORTED_BY|MENTIONS]-(f:Fact) WHERE f.guild_id = $guild_id }
RETURN u AS node,
       {paths: COLLECT { MATCH p = (u)<-[:ABOUT]-(f:Fact) WHERE f.guild_id = $guild_id
                         RETURN p ORDER BY f.valid_at DESC, f.uuid LIMIT $limit },
        total: COUNT { MATCH (u)<-[:ABOUT]-(f:Fact) WHERE f.guild_id = $guild_id }} AS facts_about,
       {paths: COLLECT { MATCH p = (u)<-[:REPORTED_BY]-(f:Fact) WHERE f.guild_id = $guild_id
                         RETURN p ORDER BY f.valid_at DESC, f.uuid LIMIT $limit },
        total: COUNT { MATCH (u)<-[:REPORTED_BY]-(f:Fact) WHERE f.guild_id = $guild_id }} AS reported,
       {paths: COLLECT { MATCH p = (u)<-[:MENTIONS]-(f:Fact) WHERE f.guild_id = $guild_id
                         RETURN p ORDER BY f.valid_at DESC, f.uuid LIMIT $limit },
        total: COUNT { MATCH (u)<-[:MENTIONS]-(f:Fact) WHERE f.guild_id = $guild_id }} AS mentioned_in,
       {paths: COLLECT { MATCH p = (u)<-[:RELATED_TO]-(e:Entity) WHERE e.guild_id = $guild_id RETURN p LIMIT $limit },
        total: COUNT { MATCH (u)<-[:RELATED_TO]-(e:Entity) WHERE e.guild_id = $guild_id }} AS related,
       {paths: COLLECT { MATCH p = (u)-[:TOOK_PART_IN]->(ep:Episode) WHERE ep.guild_id = $guild_id
                         RETURN p ORDER BY ep.started_at DESC, ep.key LIMIT $limit },
        total: COUNT { MATCH (u)-[:TOOK_PART_IN]->(ep:Episode) WHERE ep.guild_id = $guild_id }} AS episodes
