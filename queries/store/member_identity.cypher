// Who a member is, for a forget or an export: every name their account has carried (the latest too), their
// memberships with every nickname they carried there, and the other guilds their messages and the facts
// about, mentioning or from them are in (a guild they belonged to before its membership was recorded).
MATCH (u:User {id: $user_id})
RETURN u.name AS name, u.display_name AS display_name, coalesce(u.names, []) AS names,
       [(u)-[m:MEMBER_OF]->(g:Guild) | {guild_id: g.id, names: coalesce(m.names, []) + [m.display_name]}] AS memberships,
       COLLECT { MATCH (u)-[:SENT]->(msg:Message) RETURN DISTINCT msg.guild_id } AS message_guilds,
       COLLECT { MATCH (u)<-[:ABOUT|MENTIONS|REPORTED_BY]-(f:Fact) RETURN DISTINCT f.guild_id } AS fact_guilds
