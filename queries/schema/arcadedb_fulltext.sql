-- ArcadeDB's Cypher cannot create full-text indexes: the same indexes as fulltext.cypher, in ArcadeDB SQL.
-- Each indexes its record's guild_term too ('g' and the guild id without its colon: one token), so a search
-- names its guild inside the index (+guild_term:g<id>) and never reads another guild's matches.
CREATE VERTEX TYPE Fact IF NOT EXISTS;
CREATE PROPERTY Fact.text IF NOT EXISTS STRING;
CREATE PROPERTY Fact.guild_term IF NOT EXISTS STRING;
CREATE INDEX fact_text IF NOT EXISTS ON Fact (text, guild_term) FULL_TEXT;
CREATE VERTEX TYPE Entity IF NOT EXISTS;
CREATE PROPERTY Entity.name IF NOT EXISTS STRING;
CREATE PROPERTY Entity.alias_text IF NOT EXISTS STRING;
CREATE PROPERTY Entity.guild_term IF NOT EXISTS STRING;
CREATE INDEX entity_names IF NOT EXISTS ON Entity (name, alias_text, guild_term) FULL_TEXT;
CREATE VERTEX TYPE Message IF NOT EXISTS;
CREATE PROPERTY Message.content IF NOT EXISTS STRING;
CREATE PROPERTY Message.guild_term IF NOT EXISTS STRING;
CREATE INDEX message_content IF NOT EXISTS ON Message (content, guild_term) FULL_TEXT;
