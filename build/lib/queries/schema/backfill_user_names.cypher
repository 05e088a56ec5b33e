// Accounts stored before names were kept casefolded get them (lookups by name use these indexed keys).
MATCH (u:User)
WHERE u.name_lower IS NULL OR u.display_lower IS NULL
SET u.name_lower = toLower(u.name), u.display_lower = toLower(u.display_name)
RETURN count(u) AS updated
