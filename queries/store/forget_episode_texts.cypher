// Forget-me: the summaries (and failure reasons) of the episodes near the member, to redact their names.
UNWIND $uuids AS id
MATCH (e:Episode {uuid: id})
RETURN e.uuid AS key, e.guild_id AS guild_id, e.summary AS summary, e.error AS error
