// Around one entity of a guild, for the explorer: the facts about it and those that mention it
// (newest first), and its lasting relations either way (to members, or to entities of the guild).
// Each group is {paths, total}; at most $limit paths per group. No row when it is not in the guild.
MATCH (e:Entity {uuid: $key})
WHERE e.guild_id = $guild_id
RETURN e AS node,
       {paths: COLLECT { MATCH p = (e)<-[:ABOUT]-(f:Fact) WHERE f.guild_id = $guild_id
                         RETURN p ORDER BY f.valid_at DESC, f.uuid LIMIT $limit },
        total: COUNT { MATCH (e)<-[:ABOUT]-(f:Fact) WHERE f.guild_id = $guild_id }} AS facts_about,
       {paths: COLLECT { MATCH p = (e)<-[:MENTIONS]-(f:Fact) WHERE f.guild_id = $guild_id
                         RETURN p ORDER BY f.valid_at DESC, f.uuid LIMIT $limit },
        total: COUNT { MATCH (e)<-[:MENTIONS]-(f:Fact) WHERE f.guild_id = $guild_id }} AS mentioned_in,
       {paths: COLLECT { MATCH p = (e)-[:RELATED_TO]-(x) WHERE x:User OR x.guild_id = $guild_id RETURN p LIMIT $limit },
        total: COUNT { MATCH (e)-[:RELATED_TO]-(x) WHERE x:User OR x.guild_id = $guild_id }} AS related
