// title: A user's timeline
// answers: The facts about the user (from valid_at until invalid_at) and the episodes they took part in (from start to end), in time order.
// params: guild_id (string, required) - the guild; user_id (string, required) - the Discord user id
// kind is 'fact' or 'episode'; state is valid/closed for facts and the episode status for episodes.
// Both lists start from the user's node, found through its id (a CALL subquery with UNION would be
// planned without indexes by ArcadeDB).
MATCH (u:User {id: $user_id})
UNWIND [(u)<-[:ABOUT]-(f:Fact) WHERE f.guild_id = $guild_id |
          {kind: 'fact', at: f.valid_at, until: f.invalid_at, what: f.text, ref: f.uuid,
           state: CASE WHEN f.invalid_at IS NULL AND f.expired_at IS NULL AND (f.expires_at IS NULL OR f.expires_at > datetime()) THEN 'valid' ELSE 'closed' END}] +
       [(u)-[:TOOK_PART_IN]->(ep:Episode) WHERE ep.guild_id = $guild_id |
          {kind: 'episode', at: ep.started_at, until: ep.ended_at,
           what: CASE WHEN ep.summary IS NULL OR ep.summary = '' THEN ep.key ELSE ep.summary END,
           ref: ep.key, state: ep.status}] AS item
RETURN item.kind AS kind, item.at AS at, item.until AS until, item.what AS what, item.ref AS ref, item.state AS state
ORDER BY at, kind, ref
