MATCH (e:Episode {key: $key})
RETURN e.uuid AS uuid, e.key AS key, e.guild_id AS guild_id, e.channel_id AS channel_id,
       e.started_at AS started_at, e.ended_at AS ended_at, e.message_count AS message_count,
       e.summary AS summary, e.status AS status, e.attempts AS attempts, e.error AS error
