// A memory mode set by a member with Manage Server or an operator: 'off', 'private' or 'shared'. It stays
// until set again (visibility changes no longer move it). Threads and forum posts of the channel whose mode
// no one set follow it: all of them to 'off'; the public ones to 'private' or 'shared'.
MATCH (c:Channel {id: $id})
WHERE c.guild_id = $guild_id
SET c.mode = $mode, c.mode_set = true
WITH c
CALL (c) {
  MATCH (t:Channel {parent_id: c.id})
  WHERE t.guild_id = $guild_id AND NOT coalesce(t.mode_set, false)
    AND ($mode = 'off' OR coalesce(t.visibility, '') = 'public')
  SET t.mode = $mode
  RETURN count(t) AS threads
}
RETURN c.id AS id, threads
