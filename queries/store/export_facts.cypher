// A member's data access request: facts by uuid (each through the unique index), with how each touches the
// member, who reported it (by id, shown by name), when it held, and the channels of its audience (graph/scope.py:
// the channels it was told in, kept when retention removed the messages), so what they could not read is counted,
// not shown.
UNWIND $uuids AS id
MATCH (f:Fact {uuid: id})
RETURN {uuid: f.uuid, guild_id: f.guild_id, text: f.text, category: f.category,
        about_them: size([(f)-[:ABOUT]->(x:User {id: $user_id}) | x]) > 0,
        mentions_them: size([(f)-[:MENTIONS]->(x:User {id: $user_id}) | x]) > 0,
        valid_at: toString(f.valid_at), invalid_at: toString(f.invalid_at),
        created_at: toString(f.created_at), expired_at: toString(f.expired_at),
        reports: [(f)-[r:REPORTED_BY]->(by:User) | {user_id: by.id, message_id: r.message_id, at: toString(r.at)}],
        sources: coalesce(f.audience, [])} AS fact
