// `grapevine demo --fresh`: everything stored of one guild (the shipped sample's), to import it again from
// nothing: its messages, episodes, facts, entities, channels and the Guild itself. One statement per label,
// each read through its guild index; nothing outside the guild is read or written.
MATCH (n:Message {guild_id: $guild_id}) DETACH DELETE n RETURN 'Message' AS label, count(*) AS deleted;
MATCH (n:Episode {guild_id: $guild_id}) DETACH DELETE n RETURN 'Episode' AS label, count(*) AS deleted;
MATCH (n:Fact {guild_id: $guild_id}) DETACH DELETE n RETURN 'Fact' AS label, count(*) AS deleted;
MATCH (n:Entity {guild_id: $guild_id}) DETACH DELETE n RETURN 'Entity' AS label, count(*) AS deleted;
MATCH (n:Channel {guild_id: $guild_id}) DETACH DELETE n RETURN 'Channel' AS label, count(*) AS deleted;
MATCH (n:ActivityDay {guild_id: $guild_id}) DETACH DELETE n RETURN 'ActivityDay' AS label, count(*) AS deleted;
MATCH (n:Guild {id: $guild_id}) DETACH DELETE n RETURN 'Guild' AS label, count(*) AS deleted;
