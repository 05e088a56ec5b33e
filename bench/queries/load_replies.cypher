// Bench only (bench/scale.py): REPLIES_TO edges between generated messages.
UNWIND $rows AS row
MATCH (m:Message {id: row.id})
MATCH (p:Message {id: row.reply_to_id})
CREATE (m)-[:REPLIES_TO]->(p)
RETURN count(*) AS replies
