// One guild's facts as a reply's fact read uses them, for the read model a process keeps in memory
// (graph/reads/fact_model.py), read after the guild's change count (context/model_links.cypher): every fact,
// open or closed (a reply says when), with its times, its audience, its subjects (ABOUT), the entities it
// MENTIONS, the messages it was drawn from, its reporters with the message each reported in, and its embedding (null
// without embeddings; the model holds it compactly and scores a reply's candidates by it). Names as
// context/facts.cypher gives them: a member's is the one they use in this guild (their membership's).
MATCH (f:Fact)
WHERE f.guild_id = $guild_id
RETURN f.uuid AS uuid, f.text AS text, f.category AS category, f.importance AS importance,
       f.confidence AS confidence, toString(f.valid_at) AS valid_at, toString(f.invalid_at) AS invalid_at,
       toString(f.expired_at) AS expired_at, toString(f.expires_at) AS expires_at, f.audience AS audience, f.embedding AS embedding,
       [(f)-[:ABOUT]->(s) | {id: coalesce(s.id, s.uuid),
         name: coalesce(head([(s)-[mb:MEMBER_OF]->(:Guild {id: $guild_id}) | mb.display_name]), s.display_name, s.name)}] AS about,
       [(f)-[:MENTIONS]->(e:Entity) | e.uuid] AS mentions,
       [(f)-[:FROM]->(m:Message) | {id: m.id, channel_id: m.channel_id}] AS sources,
       [(f)-[r:REPORTED_BY]->(rep:User) | {id: rep.id, message_id: r.message_id, at: toString(r.at),
         name: coalesce(head([(rep)-[mb:MEMBER_OF]->(:Guild {id: $guild_id}) | mb.display_name]), rep.display_name, rep.name)}] AS reporters
