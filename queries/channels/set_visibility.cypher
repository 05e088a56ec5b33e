// Whether the guild's @everyone role can view a channel ('public' or 'restricted'), as the live bot read it
// from Discord. A channel whose memory mode no one set follows it when first seen: 'shared' when public,
// 'private' when not; a public thread or forum post follows its parent's mode. Later a change narrows the mode
// at once (to 'private', or 'off' under a parent that is off) but never widens it: what was said while the
// channel was private stays private until a moderator sets it 'shared' (graph/scope.py). Returns the mode in force.
MATCH (c:Channel {id: $id})
WHERE c.guild_id = $guild_id
OPTIONAL MATCH (p:Channel {id: coalesce(c.parent_id, '')})
WITH c, p, c.visibility IS NULL OR c.mode IS NULL AS first,
     CASE WHEN p IS NOT NULL AND $visibility = 'public' AND p.mode IS NOT NULL THEN p.mode
          WHEN $visibility = 'public' THEN 'shared' ELSE 'private' END AS by_view
SET c.visibility = $visibility,
    c.mode = CASE
      WHEN coalesce(c.mode_set, false) THEN c.mode
      WHEN p IS NOT NULL AND p.mode = 'off' THEN 'off'
      WHEN first OR by_view <> 'shared' THEN by_view
      ELSE c.mode END
RETURN c.mode AS mode
