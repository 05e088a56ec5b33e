// Messages stored but in no window yet, per guild and channel: open windows of a running bot, or what a
// crashed import left (`grapevine ingest --pending` windows the ones whose quiet time has passed).
MATCH (m:Message)
WHERE m.buffered = true
RETURN m.guild_id AS guild, m.channel_id AS channel, count(m) AS messages
ORDER BY guild, channel
