// Facts reported by others that mention the user (forget-me decides which name them).
MATCH (u:User {id: $user_id})<-[:MENTIONS]-(f:Fact)
WHERE $guild_id IS NULL OR f.guild_id = $guild_id
RETURN f.uuid AS uuid, f.text AS text
