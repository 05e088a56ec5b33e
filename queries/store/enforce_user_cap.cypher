// At most $cap active facts per member per guild, for the members given ($members: {user_id, guild_id},
// graph/user_cap.py): retire the lowest importance, then the oldest. Each member is found through the
// User.id index and only their own facts are read, never the guild's.
UNWIND $members AS member
MATCH (u:User {id: member.user_id})<-[:ABOUT]-(f:Fact)
WHERE f.guild_id = member.guild_id AND f.expired_at IS NULL AND f.invalid_at IS NULL
WITH member, f
ORDER BY f.importance DESC, f.valid_at DESC, f.created_at DESC
WITH member, collect(f) AS facts
WHERE size(facts) > $cap
UNWIND facts[$cap..] AS old
SET old.expired_at = datetime($now), old:Closed,
    old.closed_key = old.guild_id + '|' + toString(1000000000000000 + datetime($now).epochMillis)
RETURN count(old) AS retired
