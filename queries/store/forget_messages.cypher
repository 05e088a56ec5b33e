// Forget-me, messages by id (each through the unique index): replies to them stop pointing at them.
UNWIND $ids AS mid
MATCH (m:Message {id: mid})
WITH m, COLLECT { MATCH (m)<-[:REPLIES_TO]-(r:Message) RETURN r } AS replies
FOREACH (r IN replies | SET r.reply_to_id = null)
DETACH DELETE m
RETURN count(m) AS messages, sum(size(replies)) AS replies
