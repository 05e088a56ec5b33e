// Facts by their uuids, in one guild.
MATCH (f:Fact)
WHERE f.uuid IN $uuids AND f.guild_id = $guild_id
CALL (f) {
  RETURN COLLECT { MATCH (f)-[:ABOUT]->(s) RETURN {id: coalesce(s.id, s.uuid), name: coalesce(head([(s)-[mb:MEMBER_OF]->(:Guild {id: f.guild_id}) | mb.display_name]), s.display_name, s.name)} } AS about,
         COLLECT { MATCH (f)-[r:REPORTED_BY]->(rep:User) RETURN {id: rep.id, name: coalesce(head([(rep)-[mb:MEMBER_OF]->(:Guild {id: f.guild_id}) | mb.display_name]), rep.display_name, rep.name), at: toString(r.at)} } AS reporters,
         COLLECT { MATCH (newer:Fact)-[:SUPERSEDES]->(f) RETURN newer.uuid } AS superseded_by
}
RETURN f.uuid AS uuid, f.text AS text, f.category AS category, f.importance AS importance,
       f.confidence AS confidence, toString(f.valid_at) AS valid_at, toString(f.invalid_at) AS invalid_at,
       toString(f.expires_at) AS expires_at, toString(f.created_at) AS created_at, toString(f.expired_at) AS expired_at,
       about, reporters, superseded_by
