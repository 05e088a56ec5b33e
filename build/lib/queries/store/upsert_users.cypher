// Discord accounts, idempotent on their snowflake ids; names also casefolded, for lookups by name.
UNWIND $users AS row
MERGE (u:User {id: row.id})
SET u.name = row.name, u.display_name = row.display_name, u.is_bot = row.is_bot,
    u.name_lower = row.name_lower, u.display_lower = row.display_lower
