// A member's data access request, the rest of what is about them: facts not linked to their account but
// about or mentioning something linked to them (Charlie's sister), or whose text carries their id or
// one of their names ($names in lowercase; the caller keeps whole-word matches). Reads every Fact.
MATCH (f:Fact)
WHERE NOT EXISTS { MATCH (f)-[:ABOUT|MENTIONS|REPORTED_BY]->(:User {id: $user_id}) }
WITH f, EXISTS { MATCH (f)-[:ABOUT|MENTIONS]->(:Entity)-[:RELATED_TO]->(:User {id: $user_id}) } AS related
WHERE related OR f.text CONTAINS $user_id OR any(name IN $names WHERE toLower(f.text) CONTAINS name)
RETURN {uuid: f.uuid, guild_id: f.guild_id, text: f.text, category: f.category, related: related,
        valid_at: toString(f.valid_at), invalid_at: toString(f.invalid_at),
        created_at: toString(f.created_at), expired_at: toString(f.expired_at),
        reports: [(f)-[r:REPORTED_BY]->(by:User) | {user_id: by.id, message_id: r.message_id, at: toString(r.at)}]} AS fact
