// A member's data access request: summaries of conversations in one guild of theirs that they did not take
// part in, whose text holds one of the names that identify them there ($names in every Unicode normal form,
// lowercased: common/text.py search_forms; the caller keeps whole-word matches). Read through the episodes'
// guild index.
MATCH (e:Episode)
WHERE e.guild_id = $guild_id AND e.summary <> '' AND any(name IN $names WHERE toLower(e.summary) CONTAINS name)
  AND NOT EXISTS { MATCH (:User {id: $user_id})-[:TOOK_PART_IN]->(e) }
RETURN {guild_id: e.guild_id, channel_id: e.channel_id, started_at: toString(e.started_at), summary: e.summary} AS summary
