// Discord accounts, idempotent on their snowflake ids.
UNWIND $users AS row
MERGE (u:User {id: row.id})
SET u.name = row.name, u.display_name = row.display_name, u.is_bot = row.is_bot
