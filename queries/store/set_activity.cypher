// One guild's days set to a recount ($rows of channel_id ('' for the guild's facts), day, messages, learned,
// closed: store/activity_recount.cypher), in the recount's transaction; the days it had go first.
MATCH (a:ActivityDay {guild_id: $guild_id}) DETACH DELETE a RETURN count(*) AS deleted;
UNWIND $rows AS row
CREATE (a:ActivityDay {key: $guild_id + '|' + toString(row.day) + '|' + row.channel_id, guild_id: $guild_id, day: row.day,
                       channel_id: row.channel_id, messages: row.messages, learned: row.learned, closed: row.closed})
RETURN count(a) AS days;
MATCH (g:Guild {id: $guild_id})
SET g.activity_kept = true
RETURN g.id AS guild_id
