// Discord accounts, idempotent on their snowflake ids; names also casefolded, for lookups by name.
// With $guild_id, the name shown is the member's in that guild (a nickname), kept on their membership
// (User)-[:MEMBER_OF]->(Guild): a User node holds only what is global (the account name), so one guild's
// nickname never shows in another. Without it (tests, benchmarks), the display name is the account's own.
// Every name carried is kept too (`names`, on the account and on each membership): a member renamed since
// is still theirs to erase under the names they had (graph/name_scope.py).
UNWIND $users AS row
MERGE (u:User {id: row.id})
ON CREATE SET u.display_name = CASE WHEN $guild_id IS NULL THEN row.display_name ELSE row.name END,
              u.display_lower = CASE WHEN $guild_id IS NULL THEN row.display_lower ELSE row.name_lower END
WITH u, row, coalesce(u.names, [n IN [u.name, u.display_name] WHERE n IS NOT NULL]) AS known,
     CASE WHEN $guild_id IS NULL AND row.display_name <> row.name THEN [row.name, row.display_name] ELSE [row.name] END AS given
SET u.name = row.name, u.is_bot = row.is_bot, u.name_lower = row.name_lower,
    u.names = known + [n IN given WHERE NOT n IN known]
FOREACH (_ IN CASE WHEN $guild_id IS NULL THEN [1] ELSE [] END |
  SET u.display_name = row.display_name, u.display_lower = row.display_lower)
WITH u, row
OPTIONAL MATCH (g:Guild {id: coalesce($guild_id, '')})
FOREACH (guild IN CASE WHEN g IS NULL THEN [] ELSE [g] END |
  MERGE (u)-[m:MEMBER_OF]->(guild)
  SET m.names = CASE WHEN row.display_name IN coalesce(m.names, []) THEN m.names
                     ELSE coalesce(m.names, [n IN [m.display_name] WHERE n IS NOT NULL]) + row.display_name END,
      m.display_name = row.display_name, m.display_lower = row.display_lower)
