// title: Facts by the memory mode of their sources
// answers: Each fact that holds, with the channels of its source messages and their memory modes ('shared': recalled anywhere in the guild; 'private': only in that channel and its threads), and where members may see it.
// params: guild_id (string, required) - the guild; mode (string, optional) - only facts with a source in a channel of this mode (off, private, shared)
// A fact with no source message (a slash command's) has no channel: it shows as 'anywhere'.
MATCH (f:Fact {guild_id: $guild_id})
WHERE f.invalid_at IS NULL AND f.expired_at IS NULL
OPTIONAL MATCH (f)-[:FROM]->(m:Message)
OPTIONAL MATCH (c:Channel {id: coalesce(m.channel_id, '')})
WITH f, collect(DISTINCT {channel: coalesce(c.name, m.channel_id), channel_id: m.channel_id, mode: coalesce(c.mode, 'private')}) AS found
WITH f, [s IN found WHERE s.channel_id IS NOT NULL] AS sources
WITH f, sources, [s IN sources | s.mode] AS modes
WHERE $mode IS NULL OR $mode IN modes
RETURN f.uuid AS fact_uuid, f.text AS fact, sources,
       CASE WHEN size(sources) = 0 OR 'shared' IN modes THEN 'anywhere'
            ELSE 'only in ' + reduce(s = '', x IN sources | s + CASE WHEN s = '' THEN '' ELSE ', ' END + x.channel) END AS recalled
ORDER BY recalled, fact
