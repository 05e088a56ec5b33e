// The kept counts of the guilds holding these Message nodes (by id) moved by how many of them exist now, times $by:
// -1 just before a statement that creates or deletes them, +1 just after it, so that each guild's count moves by
// the difference in the same transaction (graph/counts.py). Each channel's day of them (ActivityDay: the UTC day
// of created_at, days since 1970, the key '<guild id>|<day>|<channel id>') moves with it, what `memory status`
// reads for the last days. A guild whose counts are not kept (null) stays so, its days too: its recount sets both.
UNWIND $ids AS id
MATCH (n:Message {id: id})
WITH n.guild_id AS guild_id, n.channel_id AS channel_id, toInteger(floor(n.created_at.epochMillis / 86400000.0)) AS day,
     count(*) AS held
MATCH (g:Guild {id: guild_id})
WHERE g.count_messages IS NOT NULL
MERGE (a:ActivityDay {key: guild_id + '|' + toString(day) + '|' + channel_id})
ON CREATE SET a.guild_id = guild_id, a.day = day, a.channel_id = channel_id, a.messages = 0, a.learned = 0, a.closed = 0
SET a.messages = a.messages + $by * held
WITH g, sum(held) AS held
SET g.count_messages = g.count_messages + $by * held
RETURN g.id AS guild_id, held
