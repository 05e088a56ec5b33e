// One guild's facts stored and closed from $from_key until $to_key ('<guild id>|<10^15 + epoch millis>',
// graph/guild_activity.py): one range of the fact_created_key and one of the fact_closed_key index. The
// guild is the key's prefix, so the range holds only the guild's facts of the period; on ArcadeDB a
// range of the created_at / expired_at datetime indexes costs about a read of the whole index.
MATCH (f:Fact)
WHERE f.created_key >= $from_key AND f.created_key < $to_key
RETURN 'learned' AS kind, count(f) AS count;
MATCH (f:Fact)
WHERE f.closed_key >= $from_key AND f.closed_key < $to_key
RETURN 'closed' AS kind, count(f) AS count
