// A member's data access request: the spaces they could read, through their node's edges: the guilds they are a
// member of (another member's DM space is not one, even where the bot stored them as named there) and the
// guilds and DM spaces they wrote in.
MATCH (u:User {id: $user_id})
RETURN COLLECT { MATCH (u)-[:MEMBER_OF]->(g:Guild) WHERE NOT g.id STARTS WITH 'dm:' RETURN g.id } AS member_of,
       COLLECT { MATCH (u)-[:SENT]->(m:Message) RETURN DISTINCT m.guild_id } AS wrote_in
