// The episodes of deleted messages: one left with no message goes; one whose key was built from a deleted
// message id is keyed by its own uuid instead. With $drop_summaries (a forget), one that keeps other messages
// loses its summary, as for a deleted message: it was written from the member's words too (retention keeps it).
UNWIND $uuids AS id
MATCH (e:Episode {uuid: id})
WITH e, NOT EXISTS { MATCH (e)<-[:IN_EPISODE]-(:Message) } AS empty
SET e.key = CASE WHEN NOT empty AND any(mid IN $ids WHERE e.key CONTAINS mid)
                 THEN e.channel_id + ':' + e.uuid ELSE e.key END,
    e.summary = CASE WHEN NOT empty AND $drop_summaries AND e.summary <> '' THEN '' ELSE e.summary END,
    e.summary_dropped = CASE WHEN NOT empty AND $drop_summaries AND e.summary <> '' THEN true ELSE e.summary_dropped END
WITH e, empty
FOREACH (_ IN CASE WHEN empty THEN [1] ELSE [] END | DETACH DELETE e)
RETURN count(CASE WHEN empty THEN 1 END) AS episodes
