// The account to forget: the names the residue audit looks for (its nickname in every guild too).
MATCH (u:User {id: $user_id})
RETURN u.name AS name, u.display_name AS display_name, [(u)-[mb:MEMBER_OF]->(:Guild) | mb.display_name] AS nicknames
