// Residue audit: every node property (other than the consent and schema records) whose text
// contains the user's id or, case-insensitively, one of their names ($names: each in every Unicode normal form,
// lowercased: common/text.py search_forms; the caller then matches whole words in one normal form).
MATCH (n)
WHERE NOT n:GraphMeta AND NOT n:OptOut
UNWIND keys(n) AS key
WITH n, key, toStringOrNull(n[key]) AS value
WHERE value IS NOT NULL
  AND (value CONTAINS $user_id OR any(name IN $names WHERE toLower(value) CONTAINS name))
RETURN elementId(n) AS element_id, [l IN labels(n) WHERE l <> 'Closed'][0] AS label, key, value,
       coalesce(n.id, n.uuid, n.key) AS node_key, coalesce(n.guild_id, CASE WHEN n:Guild THEN n.id END) AS guild_id
