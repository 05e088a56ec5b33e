// Forget-me: others' messages stop pointing at a forgotten message, and an episode whose key was built
// from a forgotten message id is keyed by its own uuid instead.
CALL () {
  MATCH (m:Message)
  WHERE m.channel_id IN $channels AND m.reply_to_id IN $ids
  SET m.reply_to_id = null
  RETURN count(m) AS replies
}
CALL () {
  MATCH (e:Episode)
  WHERE e.channel_id IN $channels AND any(id IN $ids WHERE e.key CONTAINS id)
  SET e.key = e.channel_id + ':' + e.uuid
  RETURN count(e) AS episodes
}
RETURN replies, episodes
