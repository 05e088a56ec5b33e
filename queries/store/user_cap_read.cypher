// When the per-member fact cap was last enforced, and with which cap (graph/user_cap.py).
MATCH (m:GraphMeta {key: 'user_cap'})
RETURN m.checked_at AS checked_at, m.cap AS cap
