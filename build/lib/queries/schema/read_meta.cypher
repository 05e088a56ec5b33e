// The schema version and embedding model this graph was set up with.
MATCH (m:GraphMeta {key: 'schema'})
RETURN m.version AS version, m.embedding_model AS embedding_model,
       m.embedding_dimension AS embedding_dimension, m.salt AS salt
