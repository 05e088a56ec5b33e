// Forget-me, the episodes of forgotten messages: one left with no message goes; one whose key was built
// from a forgotten message id is keyed by its own uuid instead.
UNWIND $uuids AS id
MATCH (e:Episode {uuid: id})
WITH e, NOT EXISTS { MATCH (e)<-[:IN_EPISODE]-(:Message) } AS empty
SET e.key = CASE WHEN NOT empty AND any(mid IN $ids WHERE e.key CONTAINS mid)
                 THEN e.channel_id + ':' + e.uuid ELSE e.key END
WITH e, empty
FOREACH (_ IN CASE WHEN empty THEN [1] ELSE [] END | DETACH DELETE e)
RETURN count(CASE WHEN empty THEN 1 END) AS episodes
