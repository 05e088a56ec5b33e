// One guild's facts stored and closed from $since until $until (native datetimes; a closed range, as an
// open-ended one is estimated large and may be read as a label scan): one range of the
// fact_created_at and one of the fact_expired_at index, filtered to the guild after the range is read (a
// guild_id condition beside the range would make ArcadeDB seek the guild's every fact instead).
MATCH (f:Fact)
WHERE f.created_at >= $since AND f.created_at < $until
WITH f WHERE f.guild_id = $guild_id
RETURN 'learned' AS kind, count(f) AS count;
MATCH (f:Fact)
WHERE f.expired_at >= $since AND f.expired_at < $until
WITH f WHERE f.guild_id = $guild_id
RETURN 'closed' AS kind, count(f) AS count
