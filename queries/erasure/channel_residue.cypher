// What an erased channel may have left: its messages (and its threads'), reports and facts still keyed by the
// erased message ids, and its episodes. Each row names one trace; none when the erasure is complete.
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
}
RETURN trace
