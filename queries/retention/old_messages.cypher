// Retention: a batch of one channel's messages older than the bound, read from one range of the
// channel_time index ($from_key inclusive to $to_key exclusive, graph/keys.py), with their episodes.
// (A WITH before the episodes' OPTIONAL MATCH would make ArcadeDB scan every message instead.)
MATCH (m:Message)
WHERE m.channel_time >= $from_key AND m.channel_time < $to_key
RETURN m.id AS id, COLLECT { MATCH (m)-[:IN_EPISODE]->(e:Episode) RETURN e.uuid } AS episodes
LIMIT $batch
