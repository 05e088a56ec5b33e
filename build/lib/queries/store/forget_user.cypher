// The account to forget: the names the residue audit looks for.
MATCH (u:User {id: $user_id})
RETURN u.name AS name, u.display_name AS display_name
