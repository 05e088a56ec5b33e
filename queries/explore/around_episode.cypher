// Around one episode (a conversation window) of a guild, for the explorer: its channel, the people
// who took part, its messages (in order) and the facts extracted from it. Each group is
// {paths, total}; at most $limit paths per group. No row when it is not in the guild.
MATCH (ep:Episode {key: $key})
WHERE ep.guild_id = $guild_id
RETURN ep AS node,
       {paths: COLLECT { MATCH p = (ep)-[:IN_CHANNEL]->(:Channel) RETURN p LIMIT $limit },
        total: COUNT { MATCH (ep)-[:IN_CHANNEL]->(:Channel) }} AS channel,
       {paths: COLLECT { MATCH p = (ep)<-[:TOOK_PART_IN]-(:User) RETURN p LIMIT $limit },
        total: COUNT { MATCH (ep)<-[:TOOK_PART_IN]-(:User) }} AS participants,
       {paths: COLLECT { MATCH p = (ep)<-[:IN_EPISODE]-(m:Message) RETURN p ORDER BY m.created_at, m.id LIMIT $limit },
        total: COUNT { MATCH (ep)<-[:IN_EPISODE]-(:Message) }} AS messages,
       {paths: COLLECT { MATCH p = (ep)<-[:EXTRACTED_FROM]-(f:Fact) WHERE f.guild_id = $guild_id
                         RETURN p ORDER BY f.importance DESC, f.uuid LIMIT $limit },
        total: COUNT { MATCH (ep)<-[:EXTRACTED_FROM]-(f:Fact) WHERE f.guild_id = $guild_id }} AS facts
