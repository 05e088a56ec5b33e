// Summaries of a channel's last extracted episodes, newest first.
MATCH (e:Episode {channel_id: $channel_id})
WHERE e.guild_id = $guild_id AND e.status = 'done' AND e.summary <> ''
RETURN e.ended_at AS ended_at, e.summary AS summary
ORDER BY e.ended_at DESC
LIMIT $limit
