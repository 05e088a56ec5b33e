// The facts that keep other sources when messages they came from are deleted or edited ($ids; the facts drawn
// only from them go, erasure/sole_source_facts.cypher): a channel of those messages leaves a fact's audience
// (graph/scope.py) unless another of its sources that stays is there. Run before the messages go.
UNWIND $ids AS id
MATCH (:Message {id: id})<-[:FROM]-(f:Fact)
WITH DISTINCT f
WITH f, [(f)-[:FROM]->(m:Message) WHERE m.id IN $ids | m.channel_id] AS going,
     [(f)-[:FROM]->(m:Message) WHERE NOT m.id IN $ids | m.channel_id] AS kept
SET f.audience = [a IN coalesce(f.audience, []) WHERE NOT a IN going OR a IN kept]
RETURN count(f) AS facts
