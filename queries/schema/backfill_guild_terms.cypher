// Facts, entities and messages stored before guild_term was kept get it (the same token their writers store:
// 'g' and the guild id without its colon), so the full-text indexes find them in their guild.
MATCH (f:Fact)
WHERE f.guild_term IS NULL AND f.guild_id IS NOT NULL
SET f.guild_term = 'g' + replace(f.guild_id, ':', '')
RETURN count(f) AS updated;
MATCH (e:Entity)
WHERE e.guild_term IS NULL AND e.guild_id IS NOT NULL
SET e.guild_term = 'g' + replace(e.guild_id, ':', '')
RETURN count(e) AS updated;
MATCH (m:Message)
WHERE m.guild_term IS NULL AND m.guild_id IS NOT NULL
SET m.guild_term = 'g' + replace(m.guild_id, ':', '')
RETURN count(m) AS updated
