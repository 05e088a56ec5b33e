// Bench only (bench/scale.py): generated facts that a newer one supersedes, created closed (label Closed,
// invalid_at and expired_at the successor's valid_at) with the same provenance as load_facts.cypher;
// load_supersessions.cypher then only links them.
UNWIND $rows AS row
MATCH (u:User {id: row.reporter_id})
MATCH (m:Message {id: row.message_id})
MATCH (ep:Episode {key: row.episode_key})
CREATE (f:Fact:Closed {uuid: row.uuid, guild_id: $guild_id, guild_term: 'g' + replace($guild_id, ':', ''), text: row.text, category: row.category,
                       importance: row.importance, confidence: row.confidence, source: 'episode',
                       valid_at: datetime(row.valid_at), invalid_at: datetime(row.invalid_at),
                       expires_at: datetime(row.expires_at), created_at: datetime(row.valid_at),
                       expired_at: datetime(row.invalid_at), retire_at: datetime(row.expires_at),
                       audience: [m.channel_id],
                       created_key: $guild_id + '|' + toString(1000000000000000 + datetime(row.valid_at).epochMillis),
                       closed_key: $guild_id + '|' + toString(1000000000000000 + datetime(row.invalid_at).epochMillis)})
CREATE (f)-[:REPORTED_BY {message_id: row.message_id, at: datetime(row.valid_at)}]->(u)
CREATE (f)-[:FROM]->(m)
CREATE (f)-[:EXTRACTED_FROM]->(ep)
RETURN count(f) AS facts
