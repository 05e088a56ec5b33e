// Whether the guild's @everyone role can view a channel ('public' or 'restricted'), as the live bot read it
// from Discord. A channel whose memory mode no one set follows it: 'shared' when public, 'private' when not;
// a public thread or forum post follows its parent's mode. Returns the mode in force.
MATCH (c:Channel {id: $id})
WHERE c.guild_id = $guild_id
OPTIONAL MATCH (p:Channel {id: coalesce(c.parent_id, '')})
WITH c, p, CASE WHEN $visibility = 'public' THEN 'shared' ELSE 'private' END AS by_view
SET c.visibility = $visibility,
    c.mode = CASE
      WHEN coalesce(c.mode_set, false) THEN c.mode
      WHEN p IS NOT NULL AND p.mode = 'off' THEN 'off'
      WHEN p IS NOT NULL AND $visibility = 'public' AND p.mode IS NOT NULL THEN p.mode
      ELSE by_view END
RETURN c.mode AS mode
