// Full-text indexes over fact text, entity names and aliases, and message content (Neo4j 5), each with its
// record's guild_term ('g' and the guild id without its colon: one token), so a search names its guild inside
// the index (+guild_term:g<id>) and never reads another guild's matches.
// ArcadeDB creates the same three indexes in SQL: see arcadedb_fulltext.sql beside this file.
CREATE FULLTEXT INDEX fact_text IF NOT EXISTS FOR (n:Fact) ON EACH [n.text, n.guild_term];
CREATE FULLTEXT INDEX entity_names IF NOT EXISTS FOR (n:Entity) ON EACH [n.name, n.alias_text, n.guild_term];
CREATE FULLTEXT INDEX message_content IF NOT EXISTS FOR (n:Message) ON EACH [n.content, n.guild_term];
