// Forget-me: new texts for Entity nodes that named the forgotten member ($rows of key and props).
UNWIND $rows AS row
MATCH (n:Entity {uuid: row.key})
SET n += row.props
RETURN count(n) AS redacted
