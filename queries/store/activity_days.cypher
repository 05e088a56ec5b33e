// One guild's days from $from_key until $to_key ('<guild id>|<day>': ActivityDay's keys, days since 1970 in UTC):
// one range of the activity_day_key index, a node per channel and day and one per day for the facts, whatever
// the guild's traffic.
MATCH (a:ActivityDay)
WHERE a.key >= $from_key AND a.key < $to_key
RETURN a.day AS day, a.channel_id AS channel_id, a.messages AS messages, a.learned AS learned, a.closed AS closed
