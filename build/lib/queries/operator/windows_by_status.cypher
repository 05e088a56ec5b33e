// title: Windows waiting or failed
// answers: The guild's pending and failed episodes (conversation windows) with their channel, attempts and last error, oldest first.
// params: guild_id (string, required) - the guild; status (string, optional) - only this status: pending, failed, done or skipped (default: pending and failed)
MATCH (ep:Episode {guild_id: $guild_id})
WHERE ep.status IN CASE WHEN $status IS NULL THEN ['pending', 'failed'] ELSE [$status] END
OPTIONAL MATCH (ep)-[:IN_CHANNEL]->(c:Channel)
RETURN ep.status AS status, ep.key AS key, c.name AS channel, ep.started_at AS started_at,
       ep.ended_at AS ended_at, ep.message_count AS message_count, ep.attempts AS attempts,
       ep.error AS error, ep.updated_at AS updated_at
ORDER BY status, ended_at, key
