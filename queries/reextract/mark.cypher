// An edited message of an episode already extracted waits to be extracted again from its new text: the message
// keeps the edit it waits for ($edited_at), the episode a flag the backlog finds (ingest/reextraction.py).
MATCH (m:Message {id: $id})-[:IN_EPISODE]->(e:Episode)
WHERE e.status = 'done'
WITH m, e ORDER BY e.key LIMIT 1
SET m.reextract = $edited_at, e.reextract = true
RETURN e.key AS key
