// With $guild_id, names are the ones used in that guild.
MATCH (u:User)
WHERE u.id IN $ids
RETURN u.id AS id, u.name AS name, u.is_bot AS is_bot,
       coalesce(head([(u)-[mb:MEMBER_OF]->(:Guild {id: coalesce($guild_id, '')}) | mb.display_name]),
                u.display_name) AS display_name
