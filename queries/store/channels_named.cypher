// A channel given by its name (`--channel general`): the channels of $guild_id whose name, lowercased, is $name.
MATCH (c:Channel {guild_id: $guild_id})
WHERE toLower(c.name) = $name
RETURN c.id AS id, c.name AS name
ORDER BY id
LIMIT $limit
