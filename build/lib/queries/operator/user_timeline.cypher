// title: A user's timeline
// answers: The facts about the user (from valid_at until invalid_at) and the episodes they took part in (from start to end), in time order.
// params: guild_id (string, required) - the guild; user_id (string, required) - the Discord user id
// kind is 'fact' or 'episode'; state is valid/closed for facts and the episode status for episodes.
CALL () {
  MATCH (:User {id: $user_id})<-[:ABOUT]-(f:Fact {guild_id: $guild_id})
  RETURN 'fact' AS kind, f.valid_at AS at, f.invalid_at AS until, f.text AS what, f.uuid AS ref,
         CASE WHEN f.invalid_at IS NULL AND f.expired_at IS NULL THEN 'valid' ELSE 'closed' END AS state
  UNION ALL
  MATCH (:User {id: $user_id})-[:TOOK_PART_IN]->(ep:Episode {guild_id: $guild_id})
  RETURN 'episode' AS kind, ep.started_at AS at, ep.ended_at AS until,
         CASE WHEN ep.summary IS NULL OR ep.summary = '' THEN ep.key ELSE ep.summary END AS what,
         ep.key AS ref, ep.status AS state
}
RETURN kind, at, until, what, ref, state
ORDER BY at, kind, ref
