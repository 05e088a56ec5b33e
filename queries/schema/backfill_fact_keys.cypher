// Facts stored before created_key / closed_key were kept get them (graph/guild_activity.py: the same keys).
// Upkeep once stored expired_at naive (UTC) from a native parameter: it has no epochMillis of its own.
MATCH (f:Fact)
WHERE f.created_key IS NULL AND f.guild_id IS NOT NULL AND f.created_at IS NOT NULL
SET f.created_key = f.guild_id + '|' + toString(1000000000000000 + f.created_at.epochMillis)
RETURN count(f) AS updated;
MATCH (f:Fact)
WHERE f.closed_key IS NULL AND f.guild_id IS NOT NULL AND f.expired_at IS NOT NULL
SET f.closed_key = f.guild_id + '|' + toString(1000000000000000 +
    coalesce(f.expired_at.epochMillis, datetime({datetime: f.expired_at, timezone: 'UTC'}).epochMillis))
RETURN count(f) AS updated
