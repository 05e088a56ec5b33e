// Before messages are deleted: the replies that stay (in any channel or thread) stop pointing at them. Read
// through the reply_to_id index, and run before any deletion, so no write meets a node already deleted (a
// member answering themselves puts replies among the deleted messages).
UNWIND $ids AS mid
MATCH (r:Message {reply_to_id: mid})
WHERE NOT r.id IN $ids
SET r.reply_to_id = null
RETURN count(r) AS replies
