// A forget in one guild (a moderator's): every property of that guild's nodes whose text contains the
// member's id or, case-insensitively, one of their names ($names in every Unicode normal form, lowercased).
MATCH (n)
WHERE n.guild_id = $guild_id
UNWIND keys(n) AS key
WITH n, key, toStringOrNull(n[key]) AS value
WHERE value IS NOT NULL
  AND (value CONTAINS $user_id OR any(name IN $names WHERE toLower(value) CONTAINS name))
RETURN elementId(n) AS element_id, [l IN labels(n) WHERE l <> 'Closed'][0] AS label, key, value,
       coalesce(n.id, n.uuid, n.key) AS node_key, $guild_id AS guild_id
