// Around one channel of a guild, for the explorer: its guild and its latest episodes (conversation
// windows, newest first). Each group is {paths, total}; at most $limit paths per group. No row when
// it is not in the guild.
MATCH (c:Channel {id: $key})
WHERE c.guild_id = $guild_id
RETURN c AS node,
       {paths: COLLECT { MATCH p = (c)-[:IN_GUILD]->(:Guild) RETURN p LIMIT $limit },
        total: COUNT { MATCH (c)-[:IN_GUILD]->(:Guild) }} AS guild,
       {paths: COLLECT { MATCH p = (c)<-[:IN_CHANNEL]-(ep:Episode) WHERE ep.guild_id = $guild_id
                         RETURN p ORDER BY ep.started_at DESC, ep.key LIMIT $limit },
        total: COUNT { MATCH (c)<-[:IN_CHANNEL]-(ep:Episode) WHERE ep.guild_id = $guild_id }} AS episodes
