// A member's data access request: facts whose text carries their id or one of their names ($names in
// lowercase; the caller keeps whole-word matches and leaves out those already linked to the member).
// Reads every Fact's text, as forget-me's facts_naming does.
MATCH (f:Fact)
WHERE f.text CONTAINS $user_id OR any(name IN $names WHERE toLower(f.text) CONTAINS name)
RETURN {uuid: f.uuid, guild_id: f.guild_id, text: f.text, category: f.category, related: false,
        valid_at: toString(f.valid_at), invalid_at: toString(f.invalid_at),
        created_at: toString(f.created_at), expired_at: toString(f.expired_at),
        reports: [(f)-[r:REPORTED_BY]->(by:User) | {user_id: by.id, message_id: r.message_id, at: toString(r.at)}]} AS fact
