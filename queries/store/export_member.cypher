// A member's data access request, in the guilds they could read ($guilds: those they are a member of or wrote in,
// their own DM space included): their account and memberships there, the channels they wrote in (what they could
// read), the facts about, mentioning or reported by them (history included, with who reported them, from which
// message, when they held, and the channels they were drawn from), their messages, and the summaries of the
// conversations they took part in; and the facts about them or what is theirs told elsewhere (`beyond`: another
// member's DM space, a guild they never joined), only to be counted.
MATCH (u:User {id: $user_id})
RETURN u.name AS name, u.display_name AS display_name,
       [(u)-[mb:MEMBER_OF]->(g:Guild) WHERE g.id IN $guilds | {guild_id: g.id, nickname: mb.display_name}] AS memberships,
       COLLECT { MATCH (u)-[:SENT]->(m:Message) RETURN DISTINCT m.channel_id } AS wrote_in,
       COLLECT {
         MATCH (u)<-[:ABOUT|MENTIONS|REPORTED_BY]-(f:Fact)
         WHERE f.guild_id IN $guilds
         WITH DISTINCT f
         RETURN f.uuid
       } AS linked,
       COLLECT {
         MATCH (u)<-[:ABOUT|MENTIONS|REPORTED_BY]-(f:Fact)
         WHERE NOT f.guild_id IN $guilds
         RETURN f.uuid
       } + COLLECT {
         MATCH (u)<-[:RELATED_TO]-(:Entity)<-[:ABOUT|MENTIONS]-(f:Fact)
         WHERE NOT f.guild_id IN $guilds
         RETURN f.uuid
       } AS beyond,
       COLLECT {
         MATCH (u)-[:SENT]->(m:Message)
         WHERE m.guild_id IN $guilds
         RETURN {id: m.id, guild_id: m.guild_id, channel_id: m.channel_id, content: m.content,
                 created_at: toString(m.created_at), edited_at: toString(m.edited_at)}
       } AS messages,
       COLLECT {
         MATCH (u)-[:TOOK_PART_IN]->(e:Episode)
         WHERE e.summary <> '' AND e.guild_id IN $guilds
         RETURN {guild_id: e.guild_id, channel_id: e.channel_id, started_at: toString(e.started_at), summary: e.summary}
       } AS summaries
