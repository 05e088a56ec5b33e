// A member's data access request: facts about or mentioning something of theirs (an entity linked to them,
// "Charlie's sister"), whoever reported them, in the guilds of theirs.
MATCH (:User {id: $user_id})<-[:RELATED_TO]-(:Entity)<-[:ABOUT|MENTIONS]-(f:Fact)
WHERE f.guild_id IN $guilds
RETURN DISTINCT f.uuid AS uuid
