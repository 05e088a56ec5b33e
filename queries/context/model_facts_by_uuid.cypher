// Some of one guild's facts as context/model_facts.cypher reads them all: those $uuids names, after a write of this
// process changed them (an extraction: new facts, the facts they supersede or corroborate; graph/reads/fact_model.py).
UNWIND $uuids AS id
MATCH (f:Fact {uuid: id})
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
