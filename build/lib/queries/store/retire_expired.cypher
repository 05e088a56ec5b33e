// Retire facts past their expiry (set expired_at); history is kept.
MATCH (f:Fact)
WHERE f.expired_at IS NULL AND f.expires_at IS NOT NULL AND f.expires_at <= datetime($now)
SET f.expired_at = datetime($now), f:Closed
RETURN count(f) AS retired
