// Around one message of a guild, for the explorer: its author, its episode, the message it replies
// to and the replies to it, and the facts that cite it. Each group is {paths, total}; at most
// $limit paths per group. No row when it is not in the guild.
MATCH (m:Message {id: $key})
WHERE m.guild_id = $guild_id
RETURN m AS node,
       {paths: COLLECT { MATCH p = (m)<-[:SENT]-(:User) RETURN p LIMIT $limit },
        total: COUNT { MATCH (m)<-[:SENT]-(:User) }} AS author,
       {paths: COLLECT { MATCH p = (m)-[:IN_EPISODE]->(:Episode) RETURN p LIMIT $limit },
        total: COUNT { MATCH (m)-[:IN_EPISODE]->(:Episode) }} AS episode,
       {paths: COLLECT { MATCH p = (m)-[:REPLIES_TO]-(other:Message) WHERE other.guild_id = $guild_id
                         RETURN p ORDER BY other.created_at, other.id LIMIT $limit },
        total: COUNT { MATCH (m)-[:REPLIES_TO]-(other:Message) WHERE other.guild_id = $guild_id }} AS replies,
       {paths: COLLECT { MATCH p = (m)<-[:FROM]-(f:Fact) WHERE f.guild_id = $guild_id
                         RETURN p ORDER BY f.importance DESC, f.uuid LIMIT $limit },
        total: COUNT { MATCH (m)<-[:FROM]-(f:Fact) WHERE f.guild_id = $guild_id }} AS facts
