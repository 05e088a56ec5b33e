// Where to start in one guild: members, entities and channels whose name contains $q (casefolded;
// '' lists them all), up to $limit of each, by name. A member is an account that wrote in the guild
// or that one of its facts is about, was reported by or mentions: accounts are shared by guilds, so
// one known only elsewhere is not listed.
RETURN COLLECT {
         MATCH (u:User)
         WHERE (u.display_lower CONTAINS $q OR u.name_lower CONTAINS $q)
           AND (EXISTS { MATCH (u)-[:SENT]->(m:Message) WHERE m.guild_id = $guild_id }
                OR EXISTS { MATCH (u)<-[:ABOUT|REPORTED_BY|MENTIONS]-(f:Fact) WHERE f.guild_id = $guild_id })
         RETURN u ORDER BY u.display_lower, u.id LIMIT $limit
       } AS members,
       COLLECT {
         MATCH (e:Entity {guild_id: $guild_id})
         WHERE toLower(e.name) CONTAINS $q OR toLower(coalesce(e.alias_text, '')) CONTAINS $q
         RETURN e ORDER BY toLower(e.name), e.uuid LIMIT $limit
       } AS entities,
       COLLECT {
         MATCH (c:Channel {guild_id: $guild_id})
         WHERE toLower(coalesce(c.name, '')) CONTAINS $q
         RETURN c ORDER BY toLower(c.name), c.id LIMIT $limit
       } AS channels
