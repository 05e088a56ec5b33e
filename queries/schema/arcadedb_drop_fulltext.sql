-- The three full-text indexes (ArcadeDB SQL), before arcadedb_fulltext.sql creates them again with guild_term.
DROP INDEX `fact_text` IF EXISTS;
DROP INDEX `entity_names` IF EXISTS;
DROP INDEX `message_content` IF EXISTS;
