// The per-member fact cap was enforced at $checked_at (an ISO-8601 string) with $cap.
MERGE (m:GraphMeta {key: 'user_cap'})
SET m.checked_at = $checked_at, m.cap = $cap
RETURN m.checked_at AS checked_at
