// Facts written before their audience was stored (graph/scope.py) get it, $batch at a time (graph/store.py
// repeats it until none is left, reporting progress): the channels of the messages they came from; when those
// are gone (retention), the channel of the episode they were drawn from; when nothing records a channel, none,
// so that no member sees them (operators still do) rather than every member. Idempotent: a fact that has its
// audience is never read again.
MATCH (f:Fact)
WHERE f.audience IS NULL
WITH f LIMIT $batch
WITH f, COLLECT { MATCH (f)-[:FROM]->(m:Message) RETURN DISTINCT m.channel_id } AS heard,
     head(COLLECT { MATCH (f)-[:EXTRACTED_FROM]->(ep:Episode) RETURN ep.channel_id }) AS told
SET f.audience = CASE WHEN size(heard) > 0 THEN heard WHEN told IS NOT NULL THEN [told] ELSE [] END
RETURN count(f) AS updated
