// One fact's history, for the explorer's history stepper: the chain of supersessions through it,
// older facts it replaced and newer facts that replaced it, up to 20 steps each way, as paths.
// No row when the fact is not in the guild.
MATCH (f:Fact {uuid: $key})
WHERE f.guild_id = $guild_id
RETURN f AS node,
       COLLECT { MATCH p = (f)-[:SUPERSEDES*1..20]->(old:Fact) WHERE old.guild_id = $guild_id RETURN p LIMIT $limit } AS replaced,
       COLLECT { MATCH p = (newer:Fact)-[:SUPERSEDES*1..20]->(f) WHERE newer.guild_id = $guild_id RETURN p LIMIT $limit } AS replaced_by
