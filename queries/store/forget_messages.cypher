// Messages by id (each through the unique index), with their edges; store/unlink_replies ran first, so
// nothing here writes to another message.
UNWIND $ids AS mid
MATCH (m:Message {id: mid})
DETACH DELETE m
RETURN count(m) AS messages
