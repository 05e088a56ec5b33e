// The facts store/enforce_user_cap.cypher may close with the same $members: each member's current facts in the
// guild, read just before it, so that their guilds' days of closed facts move with it (graph/counts.py).
UNWIND $members AS member
MATCH (u:User {id: member.user_id})<-[:ABOUT]-(f:Fact)
WHERE f.guild_id = member.guild_id AND f.expired_at IS NULL AND f.invalid_at IS NULL
RETURN DISTINCT f.uuid AS id
