// The ids of a channel's messages (and its threads'), for a deleted channel or one whose memory is erased.
MATCH (m:Message)
WHERE m.guild_id = $guild_id AND (m.channel_id = $channel_id
      OR EXISTS { MATCH (t:Channel {id: m.channel_id}) WHERE t.parent_id = $channel_id })
RETURN m.id AS id
