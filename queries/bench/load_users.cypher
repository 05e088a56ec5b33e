// Bench only (bench/scale.py): generated accounts, one UNWIND batch.
UNWIND $rows AS row
CREATE (u:User {id: row.id, name: row.name, display_name: row.display_name, is_bot: false})
RETURN count(u) AS users
