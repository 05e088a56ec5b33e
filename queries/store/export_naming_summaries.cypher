// A member's data access request: summaries of conversations they did not take part in whose text names
// them ($names in lowercase; the caller keeps whole-word matches). Reads every Episode.
MATCH (e:Episode)
WHERE e.summary <> '' AND any(name IN $names WHERE toLower(e.summary) CONTAINS name)
  AND NOT EXISTS { MATCH (:User {id: $user_id})-[:TOOK_PART_IN]->(e) }
RETURN {guild_id: e.guild_id, channel_id: e.channel_id, started_at: toString(e.started_at), summary: e.summary} AS summary
