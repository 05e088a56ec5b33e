// The token of the command that started the engine (see write_owner.cypher).
MATCH (m:GraphMeta {key: 'owner'})
RETURN m.token AS token
