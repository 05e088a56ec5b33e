// One guild's facts stored since $since and closed since $since (native datetimes): one range of the
// fact_created_at and one of the fact_expired_at index, filtered to the guild after the range is read (a
// guild_id condition beside the range would make ArcadeDB seek the guild's every fact instead).
MATCH (f:Fact)
WHERE f.created_at >= $since
WITH f WHERE f.guild_id = $guild_id
RETURN 'learned' AS kind, count(f) AS count;
MATCH (f:Fact)
WHERE f.expired_at >= $since
WITH f WHERE f.guild_id = $guild_id
RETURN 'closed' AS kind, count(f) AS count
