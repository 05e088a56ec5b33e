// The ids of a channel's messages and its threads', for a deleted channel or one whose memory is erased.
MATCH (c:Channel)
WHERE c.guild_id = $guild_id AND (c.id = $channel_id OR c.parent_id = $channel_id)
WITH collect(c.id) + [$channel_id] AS channel_ids
OPTIONAL MATCH (m:Message)
WHERE m.guild_id = $guild_id AND m.channel_id IN channel_ids
RETURN channel_ids, collect(m.id) AS ids
