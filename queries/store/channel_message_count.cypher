// How many messages one channel holds in a span of time: one range of the channel_time index ($from_key
// inclusive to $to_key exclusive, graph/keys.py), however long the channel's history.
MATCH (m:Message)
WHERE m.channel_time >= $from_key AND m.channel_time < $to_key
RETURN count(m) AS count
