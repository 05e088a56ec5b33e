// Bench only (bench/scale_check.py): every fact's state (closed, when) and its provenance edges.
MATCH (f:Fact)
OPTIONAL MATCH (n:Fact)-[:SUPERSEDES]->(f)
RETURN f.uuid AS uuid, f:Closed AS closed, toString(f.invalid_at) AS invalid_at, toString(f.expired_at) AS expired_at,
       toString(f.valid_at) AS valid_at, collect(n.uuid) AS by,
       COUNT { (f)-[:REPORTED_BY]->(:User) } AS reporters, COUNT { (f)-[:FROM]->(:Message) } AS sources,
       COUNT { (f)-[:EXTRACTED_FROM]->(:Episode) } AS episodes
