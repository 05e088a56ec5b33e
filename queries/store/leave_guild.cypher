// A forget in one guild: the member's membership of it (with their nickname there) goes.
MATCH (u:User {id: $user_id})-[m:MEMBER_OF]->(:Guild {id: $guild_id})
DELETE m
RETURN count(m) AS memberships
