// Deleted messages, with their edges (sent by, in episode, replies, provenance of facts that keep other sources).
UNWIND $ids AS mid
MATCH (m:Message {id: mid})
DETACH DELETE m
RETURN count(*) AS messages
