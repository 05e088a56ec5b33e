// One guild's facts, entities, messages and episodes (`memory status`): four statements run in one read,
// each counting through its label's guild_id index, so the cost follows this guild's size, never the graph's.
// (One statement with CALL subqueries is planned without indexes by ArcadeDB: it scans every label.)
MATCH (f:Fact {guild_id: $guild_id}) RETURN 'facts' AS kind, count(f) AS count;
MATCH (e:Entity {guild_id: $guild_id}) RETURN 'entities' AS kind, count(e) AS count;
MATCH (m:Message {guild_id: $guild_id}) RETURN 'messages' AS kind, count(m) AS count;
MATCH (ep:Episode {guild_id: $guild_id}) RETURN 'episodes' AS kind, count(ep) AS count
