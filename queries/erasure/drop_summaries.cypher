// Episodes that hold deleted or changed messages lose their summary: a summary cannot be split by message
// without another LLM call, and one that still carries the removed content must not be recalled.
UNWIND $ids AS mid
MATCH (:Message {id: mid})-[:IN_EPISODE]->(e:Episode)
WITH DISTINCT e
SET e.summary = '', e.summary_dropped = true
RETURN count(e) AS episodes
