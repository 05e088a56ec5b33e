// The channels of a guild with their visibility and memory mode, as channels/modes.cypher, without counting
// their messages (graph/channels.py counts the recent ones through the channel_time index instead).
MATCH (c:Channel {guild_id: $guild_id})
RETURN c.id AS id, c.name AS name, c.kind AS kind, c.parent_id AS parent_id, c.visibility AS visibility,
       coalesce(c.mode, 'private') AS mode, coalesce(c.mode_set, false) AS mode_set, 0 AS messages
ORDER BY c.name, c.id
