// The full-text indexes set up before they held guild_term (Neo4j 5): dropped, then created again.
SHOW FULLTEXT INDEXES YIELD name, properties
WHERE name IN ['fact_text', 'entity_names', 'message_content'] AND NOT 'guild_term' IN properties
RETURN name
