// Forget-me, direct messages: everything stored in the member's DM space (the guild "dm:<user id>"):
// its Guild and Channel records, messages (the bot's replies too), episodes, facts and entities. Each
// label is read through its guild index, never by scanning the whole graph.
CALL () {
  MATCH (n:Message {guild_id: $guild_id}) RETURN n, 'Message' AS label
  UNION ALL
  MATCH (n:Episode {guild_id: $guild_id}) RETURN n, 'Episode' AS label
  UNION ALL
  MATCH (n:Fact {guild_id: $guild_id}) RETURN n, 'Fact' AS label
  UNION ALL
  MATCH (n:Entity {guild_id: $guild_id}) RETURN n, 'Entity' AS label
  UNION ALL
  MATCH (n:Channel {guild_id: $guild_id}) RETURN n, 'Channel' AS label
  UNION ALL
  MATCH (n:Guild {id: $guild_id}) RETURN n, 'Guild' AS label
}
DETACH DELETE n
RETURN label, count(*) AS deleted
