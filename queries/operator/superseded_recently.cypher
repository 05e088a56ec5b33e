// title: Facts superseded recently
// answers: Facts that a newer fact replaced from `since` until `until` (by when grapevine recorded it), with the fact that replaced them.
// params: guild_id (string, required) - the guild; since (datetime, required) - the start of the period; until (datetime, optional) - the end of the period (default: the current time)
// One range of the fact_expired_at index from $since (a bare datetime parameter: ArcadeDB ranges over the
// index only for one), then the guild's: the closings of the period, never the guild's whole history.
MATCH (old:Fact)<-[:SUPERSEDES]-(new:Fact)
WHERE old.expired_at >= $since AND old.expired_at <= coalesce($until, datetime())
WITH old, new
WHERE old.guild_id = $guild_id AND new.guild_id = $guild_id
RETURN old.uuid AS old_uuid, old.text AS old_fact, old.valid_at AS old_valid_at, old.invalid_at AS old_invalid_at,
       old.expired_at AS superseded_at, new.uuid AS new_uuid, new.text AS new_fact, new.valid_at AS new_valid_at
ORDER BY superseded_at DESC, old_uuid
