// Full-text indexes over fact text, entity names and aliases, and message content (Neo4j 5).
// ArcadeDB creates the same three indexes in SQL: see arcadedb_fulltext.sql beside this file.
CREATE FULLTEXT INDEX fact_text IF NOT EXISTS FOR (n:Fact) ON EACH [n.text];
CREATE FULLTEXT INDEX entity_names IF NOT EXISTS FOR (n:Entity) ON EACH [n.name, n.alias_text];
CREATE FULLTEXT INDEX message_content IF NOT EXISTS FOR (n:Message) ON EACH [n.content];
