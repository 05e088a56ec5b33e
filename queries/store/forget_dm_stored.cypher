// Forget-me, direct messages: whether anything is stored in the member's DM space (the guild "dm:<user id>"),
// each label through its guild index; when nothing is, forget_dm_space's six deletions are not run.
MATCH (n:Message {guild_id: $guild_id}) RETURN 'Message' AS label LIMIT 1
UNION ALL
MATCH (n:Episode {guild_id: $guild_id}) RETURN 'Episode' AS label LIMIT 1
UNION ALL
MATCH (n:Fact {guild_id: $guild_id}) RETURN 'Fact' AS label LIMIT 1
UNION ALL
MATCH (n:Entity {guild_id: $guild_id}) RETURN 'Entity' AS label LIMIT 1
UNION ALL
MATCH (n:Channel {guild_id: $guild_id}) RETURN 'Channel' AS label LIMIT 1
UNION ALL
MATCH (n:Guild {id: $guild_id}) RETURN 'Guild' AS label LIMIT 1
