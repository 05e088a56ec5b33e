MATCH (o:OptOut {key: $key})
DELETE o
RETURN count(*) AS removed
