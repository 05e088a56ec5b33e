// title: Facts by the memory mode of their channels
// answers: Each fact that holds, with the channels of its audience (where it was told: graph/scope.py) and their memory modes ('shared': recalled anywhere in the guild; 'private': only in that channel and its threads), and where members may see it.
// params: guild_id (string, required) - the guild; mode (string, optional) - only facts told in a channel of this mode (off, private, shared)
// A fact whose channel nothing records (its messages and episode removed before audiences were stored) is seen
// by no member: it shows as 'nowhere'.
MATCH (f:Fact {guild_id: $guild_id})
WHERE f.invalid_at IS NULL AND f.expired_at IS NULL AND (f.expires_at IS NULL OR f.expires_at > datetime())
UNWIND CASE WHEN size(coalesce(f.audience, [])) = 0 THEN [null] ELSE f.audience END AS channel_id
OPTIONAL MATCH (c:Channel {id: coalesce(channel_id, '')})
WITH f, collect(CASE WHEN channel_id IS NULL THEN null
                     ELSE {channel: coalesce(c.name, channel_id), channel_id: channel_id, mode: coalesce(c.mode, 'private')} END) AS sources
WITH f, sources, [s IN sources | s.mode] AS modes
WHERE $mode IS NULL OR $mode IN modes
RETURN f.uuid AS fact_uuid, f.text AS fact, sources,
       CASE WHEN size(sources) = 0 THEN 'nowhere'
            WHEN 'shared' IN modes THEN 'anywhere'
            ELSE 'only in ' + reduce(s = '', x IN sources | s + CASE WHEN s = '' THEN '' ELSE ', ' END + x.channel) END AS recalled
ORDER BY recalled, fact
