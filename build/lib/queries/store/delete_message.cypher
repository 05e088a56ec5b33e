// A message deleted on Discord is deleted here too, with its edges.
MATCH (m:Message {id: $id})
DETACH DELETE m
RETURN count(*) AS deleted
