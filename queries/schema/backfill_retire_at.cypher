// Facts stored before retire_at was kept get it while they are still to be retired (retire_expired.cypher).
MATCH (f:Fact)
WHERE f.retire_at IS NULL AND f.expires_at IS NOT NULL AND f.expired_at IS NULL
SET f.retire_at = f.expires_at
RETURN count(f) AS updated
