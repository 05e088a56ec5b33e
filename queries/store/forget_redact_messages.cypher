// Forget-me: new texts for Message nodes that named the forgotten member ($rows of key and props).
UNWIND $rows AS row
MATCH (n:Message {id: row.key})
SET n += row.props
RETURN count(n) AS redacted
