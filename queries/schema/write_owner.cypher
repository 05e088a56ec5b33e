// The token of the command that started the engine (also in <data dir>/engine.json): a command that finds
// an engine listening joins it only if the token it reads here is the one its data directory names.
MERGE (m:GraphMeta {key: 'owner'})
SET m.token = $token
RETURN m.token AS token
