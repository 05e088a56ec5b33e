// Messages extracted again (or given up on) wait no more; their episode's flag goes once none of its
// messages waits.
UNWIND $changes AS change
MATCH (m:Message {id: change.id})
WHERE m.reextract = change.edit
REMOVE m.reextract
WITH count(m) AS cleared
MATCH (e:Episode {key: $key})
WHERE NOT EXISTS { MATCH (w:Message)-[:IN_EPISODE]->(e) WHERE w.reextract IS NOT NULL }
REMOVE e.reextract
RETURN cleared
