// A newer fact closes an older valid one: invalid_at = the new fact's valid_at, expired_at = now (closed_key:
// graph/guild_activity.py).
UNWIND $supersessions AS row
MATCH (new:Fact {uuid: row.new_uuid})
MATCH (old:Fact {uuid: row.old_uuid})
WITH new, old
WHERE new.guild_id = $guild_id AND old.guild_id = $guild_id AND old.invalid_at IS NULL AND old.uuid <> new.uuid
SET old.invalid_at = new.valid_at, old.expired_at = datetime($now), old:Closed,
    old.closed_key = $guild_id + '|' + toString(1000000000000000 + datetime($now).epochMillis)
MERGE (new)-[:SUPERSEDES]->(old)
RETURN count(old) AS superseded
