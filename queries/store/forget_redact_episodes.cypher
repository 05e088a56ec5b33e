// Forget-me: new texts for Episode nodes that named the forgotten member ($rows of key and props).
UNWIND $rows AS row
MATCH (n:Episode {uuid: row.key})
SET n += row.props
RETURN count(n) AS redacted
