// A Discord guild (server), idempotent on its id.
MERGE (g:Guild {id: $id})
SET g.name = $name
