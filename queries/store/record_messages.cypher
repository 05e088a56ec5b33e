// New messages (record_messages found none of these ids stored), each with its author's SENT
// edge; `buffered` marks a message not yet in an episode. CREATE, not MERGE: MERGE and its CALL subqueries
// cost ArcadeDB an order of magnitude more per row than CREATE (PROFILE); the caller has
// ruled out that an id exists, and every property is set by the CREATE (no second update of the record).
UNWIND $rows AS row
MATCH (u:User {id: row.author_id})
CREATE (u)-[:SENT]->(m:Message {id: row.id, guild_id: row.guild_id, guild_term: 'g' + replace(row.guild_id, ':', ''),
                                channel_id: row.channel_id,
                                author_id: row.author_id, content: row.content,
                                created_at: datetime(row.created_at), buffered: true,
                                channel_time: row.channel_time, edited_at: datetime(row.edited_at),
                                reply_to_id: row.reply_to_id})
RETURN count(m) AS created
