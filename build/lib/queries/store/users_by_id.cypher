MATCH (u:User)
WHERE u.id IN $ids
RETURN u.id AS id, u.name AS name, u.display_name AS display_name, u.is_bot AS is_bot
