// Forget-me, direct messages: everything stored in the member's DM space (the guild "dm:<user id>"):
// its Guild and Channel records (never a channel another guild's messages are in), messages (the bot's replies too), episodes, facts and entities. One
// statement per label, each read through its guild index (a CALL subquery would scan every node).
// first, replies elsewhere to its messages (Discord's references may cross channels) stop pointing at them
MATCH (n:Message {guild_id: $guild_id}) MATCH (r:Message {reply_to_id: n.id}) WHERE r.guild_id <> $guild_id SET r.reply_to_id = null RETURN 'Message' AS label, 0 AS deleted;
MATCH (n:Message {guild_id: $guild_id}) DETACH DELETE n RETURN 'Message' AS label, count(*) AS deleted;
MATCH (n:Episode {guild_id: $guild_id}) DETACH DELETE n RETURN 'Episode' AS label, count(*) AS deleted;
MATCH (n:Fact {guild_id: $guild_id}) DETACH DELETE n RETURN 'Fact' AS label, count(*) AS deleted;
MATCH (n:Entity {guild_id: $guild_id}) DETACH DELETE n RETURN 'Entity' AS label, count(*) AS deleted;
MATCH (n:Channel {guild_id: $guild_id}) WHERE NOT EXISTS { MATCH (m:Message {channel_id: n.id}) WHERE m.guild_id <> $guild_id } DETACH DELETE n RETURN 'Channel' AS label, count(*) AS deleted;
MATCH (n:ActivityDay {guild_id: $guild_id}) DETACH DELETE n RETURN 'ActivityDay' AS label, count(*) AS deleted;
MATCH (n:Guild {id: $guild_id}) DETACH DELETE n RETURN 'Guild' AS label, count(*) AS deleted;
