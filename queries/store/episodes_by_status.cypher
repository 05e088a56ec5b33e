// Episodes waiting for extraction (pending) or parked after failures (failed), oldest first.
MATCH (e:Episode)
WHERE e.status IN $statuses AND ($guild_id IS NULL OR e.guild_id = $guild_id)
RETURN e.uuid AS uuid, e.key AS key, e.guild_id AS guild_id, e.channel_id AS channel_id,
       e.started_at AS started_at, e.ended_at AS ended_at, e.message_count AS message_count,
       e.summary AS summary, e.status AS status, e.attempts AS attempts, e.error AS error,
       e.updated_at AS updated_at
ORDER BY e.ended_at
LIMIT $limit
