// Residue audit: every relationship property that contains the user's id.
MATCH ()-[r]->()
UNWIND keys(r) AS key
WITH r, key, toStringOrNull(r[key]) AS value
WHERE value IS NOT NULL AND value CONTAINS $user_id
RETURN type(r) AS type, key, value
