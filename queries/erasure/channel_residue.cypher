// What an erased channel may have left: its messages (and its threads'), reports and facts still keyed by the
// erased message ids, its episodes, and any fact whose audience still names the channel or a thread of it (told
// only there, sourced or not, it should be gone; told elsewhere too, the channel should have left its audience).
// Each row names one trace; none when the erasure is complete.
CALL () {
  MATCH (m:Message) WHERE m.guild_id = $guild_id AND m.channel_id IN $channel_ids
  RETURN 'message ' + m.id AS trace
  UNION ALL
  UNWIND $ids AS mid
  MATCH (:Fact)-[r:REPORTED_BY {message_id: mid}]->(:User)
  RETURN 'report keyed by message ' + mid AS trace
  UNION ALL
  MATCH (e:Episode) WHERE e.guild_id = $guild_id AND e.channel_id IN $channel_ids
  RETURN 'episode ' + e.key AS trace
  UNION ALL
  MATCH (f:Fact) WHERE f.guild_id = $guild_id AND any(a IN coalesce(f.audience, []) WHERE a IN $channel_ids)
  RETURN 'fact ' + f.uuid + ' told in the channel' AS trace
}
RETURN trace
