// The purge ran: clear the mark, unless another erasure came in meanwhile (then the next pass purges again).
MATCH (m:GraphMeta {key: 'purge_due'})
WHERE m.erasures = $erasures
DELETE m
RETURN count(*) AS cleared
