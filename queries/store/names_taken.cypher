// Which of $names (lowercase) another member of the guild carries, now or before (account names, display
// names, nicknames there): read from the guild's memberships. A name two members carry identifies neither.
MATCH (:Guild {id: $guild_id})<-[m:MEMBER_OF]-(o:User)
WHERE o.id <> $user_id
UNWIND coalesce(m.names, []) + coalesce(o.names, []) + [m.display_name, o.name, o.display_name] AS carried
WITH DISTINCT toLower(carried) AS carried
WHERE carried IN $names
RETURN carried
