// A memory mode set by a member with Manage Server or an operator: 'off', 'private' or 'shared'. It stays
// until set again, or until Discord hides the channel from @everyone (queries/channels/set_visibility.cypher:
// narrowing always wins). 'shared' is refused (`hidden`, nothing changed) while Discord hides the channel from
// @everyone. Threads and forum posts of the channel whose mode no one set follow it: all of them to 'off' or
// 'private' (a thread its parent took off comes back with it); only the ones @everyone may view to 'shared'.
MATCH (c:Channel {id: $id})
WHERE c.guild_id = $guild_id
WITH c, $mode = 'shared' AND coalesce(c.visibility, '') = 'restricted' AS hidden
SET c.mode = CASE WHEN hidden THEN c.mode ELSE $mode END,
    c.mode_set = CASE WHEN hidden THEN c.mode_set ELSE true END
WITH c, hidden
CALL (c, hidden) {
  MATCH (t:Channel {parent_id: c.id})
  WHERE NOT hidden AND t.guild_id = $guild_id AND NOT coalesce(t.mode_set, false)
    AND ($mode <> 'shared' OR coalesce(t.visibility, '') = 'public')
  SET t.mode = $mode
  RETURN count(t) AS threads
}
RETURN c.id AS id, hidden, threads
