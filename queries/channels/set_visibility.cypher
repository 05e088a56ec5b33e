// Whether the guild's @everyone role can view a channel ('public' or 'restricted'), as the live bot read it
// from Discord. A channel whose memory mode no one set follows it when first seen: 'shared' when public,
// 'private' when not; a public thread or forum post follows its parent's mode. Narrowing always wins: a channel
// Discord hides from @everyone is 'private' at once (or stays 'off'), whatever mode a moderator had set, and so
// are its stored threads; 'off' under a parent that is off. Being shown again never widens it: what was said
// while the channel was private stays private until a moderator sets it 'shared' (graph/scope.py). Returns the
// mode in force.
MATCH (c:Channel {id: $id})
WHERE c.guild_id = $guild_id
OPTIONAL MATCH (p:Channel {id: coalesce(c.parent_id, '')})
WITH c, p, c.visibility IS NULL OR c.mode IS NULL AS first,
     CASE WHEN p IS NOT NULL AND $visibility = 'public' AND p.mode IS NOT NULL THEN p.mode
          WHEN $visibility = 'public' THEN 'shared' ELSE 'private' END AS by_view
SET c.visibility = $visibility,
    c.mode = CASE
      WHEN $visibility = 'restricted' AND c.mode = 'off' THEN 'off'
      WHEN NOT coalesce(c.mode_set, false) AND p IS NOT NULL AND p.mode = 'off' THEN 'off'
      WHEN $visibility = 'restricted' THEN 'private'
      WHEN coalesce(c.mode_set, false) THEN c.mode
      WHEN first OR by_view <> 'shared' THEN by_view
      ELSE c.mode END
WITH c
CALL (c) {
  MATCH (t:Channel {parent_id: c.id})
  WHERE t.guild_id = $guild_id AND $visibility = 'restricted'
  SET t.visibility = 'restricted', t.mode = CASE WHEN t.mode = 'off' THEN 'off' ELSE 'private' END
  RETURN count(t) AS threads
}
RETURN c.mode AS mode, threads
