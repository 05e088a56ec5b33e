// The three full-text indexes (Neo4j 5), before fulltext.cypher creates them again with guild_term.
DROP INDEX fact_text IF EXISTS;
DROP INDEX entity_names IF EXISTS;
DROP INDEX message_content IF EXISTS
