// Forget-me: facts, messages and entities whose words include the member's id or a word of their names
// ($query: those words joined by OR), through the full-text indexes; the caller keeps those that name
// them as a whole word, and deletes or redacts them.
CALL db.index.fulltext.queryNodes('fact_text', $query, {limit: $limit}) YIELD node
RETURN 'Fact' AS label, node.uuid AS key, node.guild_id AS guild_id, node.text AS text, [] AS aliases
UNION ALL
CALL db.index.fulltext.queryNodes('message_content', $query, {limit: $limit}) YIELD node
RETURN 'Message' AS label, node.id AS key, node.guild_id AS guild_id, node.content AS text, [] AS aliases
UNION ALL
CALL db.index.fulltext.queryNodes('entity_names', $query, {limit: $limit}) YIELD node
RETURN 'Entity' AS label, node.uuid AS key, node.guild_id AS guild_id, node.name AS text,
       coalesce(node.aliases, []) AS aliases
