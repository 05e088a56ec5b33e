// Around one fact of a guild, for the explorer: what it is about and mentions, who reported it
// (each report an edge with its time and message), the messages and episodes it came from, the
// facts it superseded and the facts that superseded it. Each group is {paths, total}; at most
// $limit paths per group. No row when the fact is not in the guild (deleted, forgotten, elsewhere).
MATCH (f:Fact {uuid: $key})
WHERE f.guild_id = $guild_id
RETURN f AS node,
       {paths: COLLECT { MATCH p = (f)-[:ABOUT]->(x) WHERE x:User OR x.guild_id = $guild_id RETURN p LIMIT $limit },
        total: COUNT { MATCH (f)-[:ABOUT]->(x) WHERE x:User OR x.guild_id = $guild_id }} AS about,
       {paths: COLLECT { MATCH p = (f)-[:REPORTED_BY]->(:User) RETURN p LIMIT $limit },
        total: COUNT { MATCH (f)-[:REPORTED_BY]->(:User) }} AS reported_by,
       {paths: COLLECT { MATCH p = (f)-[:MENTIONS]->(x) WHERE x:User OR x.guild_id = $guild_id RETURN p LIMIT $limit },
        total: COUNT { MATCH (f)-[:MENTIONS]->(x) WHERE x:User OR x.guild_id = $guild_id }} AS mentions,
       {paths: COLLECT { MATCH p = (f)-[:FROM]->(m:Message) WHERE m.guild_id = $guild_id RETURN p LIMIT $limit },
        total: COUNT { MATCH (f)-[:FROM]->(m:Message) WHERE m.guild_id = $guild_id }} AS messages,
       {paths: COLLECT { MATCH p = (f)-[:EXTRACTED_FROM]->(ep:Episode) WHERE ep.guild_id = $guild_id RETURN p LIMIT $limit },
        total: COUNT { MATCH (f)-[:EXTRACTED_FROM]->(ep:Episode) WHERE ep.guild_id = $guild_id }} AS episodes,
       {paths: COLLECT { MATCH p = (f)-[:SUPERSEDES]->(old:Fact) WHERE old.guild_id = $guild_id RETURN p LIMIT $limit },
        total: COUNT { MATCH (f)-[:SUPERSEDES]->(old:Fact) WHERE old.guild_id = $guild_id }} AS supersedes,
       {paths: COLLECT { MATCH p = (newer:Fact)-[:SUPERSEDES]->(f) WHERE newer.guild_id = $guild_id RETURN p LIMIT $limit },
        total: COUNT { MATCH (newer:Fact)-[:SUPERSEDES]->(f) WHERE newer.guild_id = $guild_id }} AS superseded_by
