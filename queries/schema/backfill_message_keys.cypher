// Messages stored before channel_time was kept get it (graph/keys.py: the same key, built in Cypher).
MATCH (m:Message)
WHERE m.channel_time IS NULL AND m.channel_id IS NOT NULL AND m.created_at IS NOT NULL
SET m.channel_time = m.channel_id + '|' + toString(1000000000000000 + m.created_at.epochMillis)
RETURN count(m) AS updated
