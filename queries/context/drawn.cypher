// The messages each fact of $uuids was drawn from (FROM), in $guild_id: a reply context leaves out a recalled
// message whose fact it keeps (recall.assemble.REDUNDANT). One index seek per fact, for a bounded number of facts
// (the related facts a context considers, recall.assemble.RELATED_FACTS), run beside context/evidence.
UNWIND $uuids AS uuid
MATCH (f:Fact {uuid: uuid})-[:FROM]->(m:Message)
WHERE f.guild_id = $guild_id AND m.guild_id = $guild_id
WITH uuid, collect(m.id) AS messages
RETURN collect([uuid, messages]) AS drawn
