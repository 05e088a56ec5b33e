// The explorer's guild picker: every guild with how many facts it holds, by name.
MATCH (g:Guild)
RETURN g.id AS id, coalesce(g.name, g.id) AS name,
       COUNT { MATCH (f:Fact) WHERE f.guild_id = g.id } AS facts
ORDER BY name, id
