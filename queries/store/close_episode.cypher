// A closed window becomes an Episode (idempotent on its key) holding its messages and participants.
MATCH (c:Channel {id: $channel_id})
MERGE (e:Episode {key: $key})
ON CREATE SET e.uuid = $uuid, e.guild_id = $guild_id, e.channel_id = $channel_id,
              e.started_at = datetime($started_at), e.ended_at = datetime($ended_at),
              e.message_count = size($message_ids), e.summary = '', e.status = $status,
              e.attempts = 0, e.closed_at = datetime($now)
MERGE (e)-[:IN_CHANNEL]->(c)
WITH e
CALL (e) {
  UNWIND $message_ids AS mid
  MATCH (m:Message {id: mid})
  WHERE m.channel_id = $channel_id
  MERGE (m)-[:IN_EPISODE]->(e)
  REMOVE m.buffered
}
CALL (e) {
  UNWIND $participant_ids AS uid
  MATCH (u:User {id: uid})
  MERGE (u)-[:TOOK_PART_IN]->(e)
}
RETURN e.uuid AS uuid, e.status AS status
