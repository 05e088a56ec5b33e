// Retire facts past their expiry (set expired_at); history is kept. `retire_at` is a fact's expiry while it
// is still to be retired (set with expires_at, removed here), so this reads one index range of the facts
// due now, never every fact that ever expired. A fact closed otherwise meanwhile (superseded) keeps its times.
MATCH (f:Fact)
WHERE f.retire_at <= $now
SET f.retire_at = null, f.expired_at = coalesce(f.expired_at, $now), f:Closed
RETURN count(CASE WHEN f.expired_at = $now THEN 1 END) AS retired
