// Bench only (bench/scale.py): extracted episodes of the generated channels, with their messages
// (IN_EPISODE) and participants (TOOK_PART_IN).
UNWIND $rows AS row
MATCH (c:Channel {id: row.channel_id})
CREATE (e:Episode {key: row.key, uuid: row.uuid, guild_id: $guild_id, channel_id: row.channel_id,
                   started_at: datetime(row.started_at), ended_at: datetime(row.ended_at),
                   message_count: size(row.message_ids), summary: row.summary, status: 'done', attempts: 1,
                   closed_at: datetime(row.ended_at), extracted_at: datetime(row.ended_at),
                   fact_count: row.fact_count})
CREATE (e)-[:IN_CHANNEL]->(c)
WITH e, row
CALL (e, row) {
  UNWIND row.message_ids AS mid
  MATCH (m:Message {id: mid})
  CREATE (m)-[:IN_EPISODE]->(e)
}
CALL (e, row) {
  UNWIND row.participant_ids AS uid
  MATCH (u:User {id: uid})
  CREATE (u)-[:TOOK_PART_IN]->(e)
}
RETURN count(e) AS episodes
