// Who said each fact: one REPORTED_BY edge per reporter and message. A second person stating a
// fact that already holds adds an edge here (corroboration) instead of a second Fact. The report's message is a
// source of the fact: its channel (the episode's when no message is stored) joins the fact's audience
// (graph/scope.py), so a fact told in #staff and again in #general may be recalled in #general too.
UNWIND $reports AS row
MATCH (f:Fact {uuid: row.fact_uuid})
WITH f, row
WHERE f.guild_id = $guild_id
MATCH (u:User {id: row.user_id})
MERGE (f)-[r:REPORTED_BY {message_id: coalesce(row.message_id, '')}]->(u)
ON CREATE SET r.at = datetime(row.at)
WITH f, row
OPTIONAL MATCH (m:Message {id: coalesce(row.message_id, '')})  // {id: null} would scan every message
FOREACH (x IN CASE WHEN m IS NULL THEN [] ELSE [m] END | MERGE (f)-[:FROM]->(x))
WITH f, row, m
OPTIONAL MATCH (ep:Episode {key: row.episode_key})
FOREACH (x IN CASE WHEN ep IS NULL THEN [] ELSE [ep] END | MERGE (f)-[:EXTRACTED_FROM]->(x))
WITH f, row, coalesce(m.channel_id, ep.channel_id) AS heard
SET f.audience = coalesce(f.audience, []) + CASE WHEN heard IS NULL OR heard IN coalesce(f.audience, []) THEN [] ELSE [heard] END
RETURN count(*) AS reports
