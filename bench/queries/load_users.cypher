// Bench only (bench/scale.py): generated accounts, one UNWIND batch.
UNWIND $rows AS row
CREATE (u:User {id: row.id, name: row.name, display_name: row.display_name, is_bot: false,
              name_lower: toLower(row.name), display_lower: toLower(row.display_name)})
RETURN count(u) AS users
