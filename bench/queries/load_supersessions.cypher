// Bench only (bench/scale.py): older facts closed by newer ones (SUPERSEDES, label Closed).
UNWIND $rows AS row
MATCH (new:Fact {uuid: row.new_uuid})
MATCH (old:Fact {uuid: row.old_uuid})
SET old.invalid_at = new.valid_at, old.expired_at = new.valid_at, old:Closed,
    old.closed_key = old.guild_id + '|' + toString(1000000000000000 + new.valid_at.epochMillis)
CREATE (new)-[:SUPERSEDES]->(old)
RETURN count(*) AS superseded
