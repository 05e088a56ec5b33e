// Whether erasures wait for the engine's files to be purged: since when, and how many.
MATCH (m:GraphMeta {key: 'purge_due'})
RETURN m.since AS since, m.erasures AS erasures
