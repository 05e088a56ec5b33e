// The guild (or DM space) a channel id is stored for, if any: a channel belongs to one (upsert_channel.cypher).
MATCH (c:Channel {id: $id})
RETURN c.guild_id AS guild_id
