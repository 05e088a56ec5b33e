// A guild given by its name (`--guild "Tidewater Hiking Club"`): the guilds whose name, lowercased, is $name.
MATCH (g:Guild)
WHERE toLower(g.name) = $name
RETURN g.id AS id, g.name AS name
ORDER BY id
LIMIT $limit
