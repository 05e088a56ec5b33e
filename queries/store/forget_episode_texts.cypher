// Forget-me: the summaries (and failure reasons) of the episodes near the member, to redact their names.
UNWIND $uuids AS id
MATCH (e:Episode {uuid: id})
RETURN e.uuid AS key, e.summary AS summary, e.error AS error
