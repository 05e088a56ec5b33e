-- ArcadeDB's Cypher cannot create full-text indexes: the same indexes as fulltext.cypher, in ArcadeDB SQL.
CREATE VERTEX TYPE Fact IF NOT EXISTS;
CREATE PROPERTY Fact.text IF NOT EXISTS STRING;
CREATE INDEX fact_text IF NOT EXISTS ON Fact (text) FULL_TEXT;
CREATE VERTEX TYPE Entity IF NOT EXISTS;
CREATE PROPERTY Entity.name IF NOT EXISTS STRING;
CREATE PROPERTY Entity.alias_text IF NOT EXISTS STRING;
CREATE INDEX entity_names IF NOT EXISTS ON Entity (name, alias_text) FULL_TEXT;
CREATE VERTEX TYPE Message IF NOT EXISTS;
CREATE PROPERTY Message.content IF NOT EXISTS STRING;
CREATE INDEX message_content IF NOT EXISTS ON Message (content) FULL_TEXT;
