// A member's data access request: facts about or mentioning something linked to them (Charlie's sister),
// whoever reported them; the caller leaves out those already linked to the member.
MATCH (:User {id: $user_id})<-[:RELATED_TO]-(:Entity)<-[:ABOUT|MENTIONS]-(f:Fact)
WITH DISTINCT f
RETURN {uuid: f.uuid, guild_id: f.guild_id, text: f.text, category: f.category, related: true,
        valid_at: toString(f.valid_at), invalid_at: toString(f.invalid_at),
        created_at: toString(f.created_at), expired_at: toString(f.expired_at),
        reports: [(f)-[r:REPORTED_BY]->(by:User) | {user_id: by.id, message_id: r.message_id, at: toString(r.at)}]} AS fact
