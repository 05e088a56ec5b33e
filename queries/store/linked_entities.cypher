// Entities linked to a user in one guild (Charlie's sister): the first hop of two-hop context.
MATCH (u:User {id: $user_id})<-[r:RELATED_TO]-(e:Entity)
WHERE e.guild_id = $guild_id
RETURN e.uuid AS uuid, e.name AS name, e.kind AS kind, e.aliases AS aliases, r.kind AS relation
LIMIT $limit
