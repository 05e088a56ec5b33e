// title: Windows waiting or failed
// answers: The guild's pending and failed episodes (conversation windows) with their channel, attempts and last error, oldest first.
// params: guild_id (string, required) - the guild; status (string, optional) - only this status: pending, failed, done or skipped (default: pending and failed)
// Read through the episode_status index, then kept to the guild: the windows waiting or failed of every guild
// (a backlog), never this guild's done history (a guild_id condition beside the status would seek that instead).
// Listing `done` or `skipped` reads that history, as it asks. (An OPTIONAL MATCH for the channel would make
// ArcadeDB plan the whole statement without indexes: the channel comes from a pattern comprehension.)
MATCH (ep:Episode)
WHERE ep.status IN ['pending', 'failed', $status]
WITH ep
WHERE ep.guild_id = $guild_id AND (ep.status = $status OR ($status IS NULL AND ep.status IN ['pending', 'failed']))
RETURN ep.status AS status, ep.key AS key, head([(ep)-[:IN_CHANNEL]->(c:Channel) | c.name]) AS channel, ep.started_at AS started_at,
       ep.ended_at AS ended_at, ep.message_count AS message_count, ep.attempts AS attempts,
       ep.error AS error, ep.updated_at AS updated_at
ORDER BY status, ended_at, key
