// Retire facts past their expiry (set expired_at); history is kept. `retire_at` is a fact's expiry while it
// is still to be retired (set with expires_at, removed here), so this reads one index range of the facts
// due now, never every fact that ever expired. A fact closed otherwise meanwhile (superseded) keeps its times.
// $now (native) bounds the range; $at (the same time as ISO text) is what is stored: ArcadeDB stores a native
// parameter as a naive datetime and, relabelled in the same statement, leaves stale entries in its index.
MATCH (f:Fact)
WHERE f.retire_at <= $now
SET f.retire_at = null, f.expired_at = coalesce(f.expired_at, datetime($at)), f:Closed,
    f.closed_key = f.guild_id + '|' + toString(1000000000000000 + coalesce(f.expired_at, datetime($at)).epochMillis)
RETURN count(CASE WHEN f.expired_at = datetime($at) THEN 1 END) AS retired
