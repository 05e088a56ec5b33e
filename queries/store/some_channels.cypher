// Up to $limit channels of the graph with their guild, no matter which (recall/rehearsal.py rehearses the reply
// reads in them at start): a label read that stops at $limit.
MATCH (c:Channel)
WHERE c.guild_id IS NOT NULL
RETURN c.id AS id, c.guild_id AS guild_id
LIMIT $limit
