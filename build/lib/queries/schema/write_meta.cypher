MERGE (m:GraphMeta {key: 'schema'})
ON CREATE SET m.version = $version, m.embedding_model = $embedding_model,
              m.embedding_dimension = $embedding_dimension, m.salt = $salt, m.created_at = datetime($now)
RETURN m.version AS version
