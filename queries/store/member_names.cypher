// The names a member goes by: account name, display name and every guild nickname, to look for in text.
MATCH (u:User {id: $user_id})
RETURN u.name AS name, u.display_name AS display_name,
       [(u)-[m:MEMBER_OF]->(:Guild) WHERE m.display_name IS NOT NULL | m.display_name] AS nicknames
