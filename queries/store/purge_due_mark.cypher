// An erasure committed: the engine's index files still hold its keys until the next purge (graph/purge.py).
// Written in the erasure's own transaction, so a crash cannot lose it.
MERGE (m:GraphMeta {key: 'purge_due'})
ON CREATE SET m.since = $now, m.erasures = 0
SET m.erasures = m.erasures + 1
RETURN m.erasures AS erasures
