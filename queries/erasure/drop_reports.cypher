// Reports and provenance keyed by deleted or changed messages, on the facts that keep other sources.
UNWIND $ids AS mid
MATCH (f:Fact)-[r:REPORTED_BY {message_id: mid}]->(:User)
DELETE r
RETURN count(r) AS reports
