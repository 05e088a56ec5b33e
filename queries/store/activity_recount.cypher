// One guild's days (graph/reads/activity.py) counted now through the guild_id indexes: its messages per channel
// and UTC day of created_at, its facts per day of created_key (learned) and of closed_key (closed). What the
// ActivityDay nodes must hold, and what a recount sets them to (store/set_activity.cypher).
MATCH (m:Message {guild_id: $guild_id})
RETURN 'messages' AS kind, m.channel_id AS channel_id, toInteger(floor(m.created_at.epochMillis / 86400000.0)) AS day,
       count(*) AS count;
MATCH (f:Fact {guild_id: $guild_id})
WHERE f.created_key IS NOT NULL
RETURN 'learned' AS kind, '' AS channel_id,
       toInteger(floor((toInteger(split(f.created_key, '|')[1]) - 1000000000000000) / 86400000.0)) AS day, count(*) AS count;
MATCH (f:Fact {guild_id: $guild_id})
WHERE f.closed_key IS NOT NULL
RETURN 'closed' AS kind, '' AS channel_id,
       toInteger(floor((toInteger(split(f.closed_key, '|')[1]) - 1000000000000000) / 86400000.0)) AS day, count(*) AS count
