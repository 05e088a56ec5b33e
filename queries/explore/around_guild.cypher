// Around one guild, for the explorer: its channels, by name. The group is {paths, total}; at most
// $limit paths. No row for another guild than $guild_id.
MATCH (g:Guild {id: $key})
WHERE g.id = $guild_id
RETURN g AS node,
       {paths: COLLECT { MATCH p = (g)<-[:IN_GUILD]-(c:Channel) RETURN p ORDER BY c.name, c.id LIMIT $limit },
        total: COUNT { MATCH (g)<-[:IN_GUILD]-(:Channel) }} AS channels
