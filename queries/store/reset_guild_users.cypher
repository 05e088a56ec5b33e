// After `reset_guild`: the accounts of $user_ids (the guild's own members) that nothing links to any more,
// so that an account a member also has in another guild, or that another guild's facts name, stays.
MATCH (u:User)
WHERE u.id IN $user_ids AND NOT EXISTS { MATCH (u)-[]->() } AND NOT EXISTS { MATCH (u)<-[]-() }
DETACH DELETE u
RETURN 'User' AS label, count(*) AS deleted
