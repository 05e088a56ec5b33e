// The episodes already holding any of $message_ids, and how many of those messages each holds: a window
// all of whose messages are in episodes is one already stored (re-imported after a forget, say).
UNWIND $message_ids AS mid
MATCH (m:Message {id: mid})-[:IN_EPISODE]->(e:Episode)
RETURN e.key AS key, e.status AS status, count(m) AS held
ORDER BY key
