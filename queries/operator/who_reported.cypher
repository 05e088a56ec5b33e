// title: Who reported facts about a user
// answers: For each fact about the user in the guild, who said it and when.
// params: guild_id (string, required) - the guild; user_id (string, required) - the Discord user id
// One row per fact and reporter, newest fact first; closed facts (superseded or expired) are
// listed too, with state = 'closed'.
MATCH (:User {id: $user_id})<-[:ABOUT]-(f:Fact {guild_id: $guild_id})
OPTIONAL MATCH (f)-[r:REPORTED_BY]->(rep:User)
RETURN f.uuid AS fact_uuid, f.text AS fact,
       CASE WHEN f.invalid_at IS NULL AND f.expired_at IS NULL AND (f.expires_at IS NULL OR f.expires_at > datetime()) THEN 'valid' ELSE 'closed' END AS state,
       rep.id AS reporter_id, coalesce(rep.display_name, rep.name) AS reporter,
       r.at AS reported_at, r.message_id AS message_id
ORDER BY f.valid_at DESC, fact_uuid, reported_at
