// One guild's channels and threads, through the channel_guild index.
MATCH (c:Channel {guild_id: $guild_id})
RETURN c.id AS id
ORDER BY id
