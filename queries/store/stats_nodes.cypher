// Node counts per label and guild.
MATCH (n)
RETURN head([l IN labels(n) WHERE l <> 'Closed']) AS label, n.guild_id AS guild_id, count(*) AS count
ORDER BY label, guild_id
