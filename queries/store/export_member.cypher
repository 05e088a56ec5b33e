// A member's data access request: their account, every fact about, mentioning or reported by them (history
// included, with who reported it, from which message, and when it held), their messages, and the
// summaries of the conversations they took part in.
MATCH (u:User {id: $user_id})
RETURN u.name AS name, u.display_name AS display_name,
       [(u)-[mb:MEMBER_OF]->(g:Guild) | {guild_id: g.id, nickname: mb.display_name}] AS memberships,
       COLLECT {
         MATCH (u)<-[:ABOUT|MENTIONS|REPORTED_BY]-(f:Fact)
         WITH DISTINCT f
         RETURN {uuid: f.uuid, guild_id: f.guild_id, text: f.text, category: f.category,
                 about_them: size([(f)-[:ABOUT]->(x:User {id: $user_id}) | x]) > 0,
                 mentions_them: size([(f)-[:MENTIONS]->(x:User {id: $user_id}) | x]) > 0,
                 valid_at: toString(f.valid_at), invalid_at: toString(f.invalid_at),
                 created_at: toString(f.created_at), expired_at: toString(f.expired_at),
                 reports: [(f)-[r:REPORTED_BY]->(by:User) | {user_id: by.id, message_id: r.message_id, at: toString(r.at)}]}
       } AS facts,
       COLLECT {
         MATCH (u)-[:SENT]->(m:Message)
         RETURN {id: m.id, guild_id: m.guild_id, channel_id: m.channel_id, content: m.content,
                 created_at: toString(m.created_at), edited_at: toString(m.edited_at)}
       } AS messages,
       COLLECT {
         MATCH (u)-[:TOOK_PART_IN]->(e:Episode)
         WHERE e.summary <> ''
         RETURN {guild_id: e.guild_id, channel_id: e.channel_id, started_at: toString(e.started_at), summary: e.summary}
       } AS summaries
