// title: Facts superseded recently
// answers: Facts that a newer fact replaced in the last N days (by when grapevine recorded it), with the fact that replaced them.
// params: guild_id (string, required) - the guild; days (int, required) - how many days back; now (datetime, optional) - the end of the period, ISO-8601 (default: the current time)
WITH coalesce(datetime($now), datetime()) AS now
MATCH (new:Fact {guild_id: $guild_id})-[:SUPERSEDES]->(old:Fact {guild_id: $guild_id})
WHERE old.expired_at IS NOT NULL AND old.expired_at <= now AND old.expired_at >= now - duration({days: $days})
RETURN old.uuid AS old_uuid, old.text AS old_fact, old.valid_at AS old_valid_at, old.invalid_at AS old_invalid_at,
       old.expired_at AS superseded_at, new.uuid AS new_uuid, new.text AS new_fact, new.valid_at AS new_valid_at
ORDER BY superseded_at DESC, old_uuid
