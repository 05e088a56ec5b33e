// Forget-me: the names of entities whose text names the forgotten member, to redact alias by alias.
MATCH (n:Entity)
WHERE elementId(n) IN $element_ids
RETURN elementId(n) AS element_id, n.name AS name, coalesce(n.aliases, []) AS aliases
