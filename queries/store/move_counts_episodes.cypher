// The kept counts of the guilds holding these Episode nodes (by uuid) moved by how many of them exist now, times $by:
// -1 just before a statement that creates or deletes them, +1 just after it, so that each guild's count moves by
// the difference in the same transaction (graph/counts.py). A guild whose counts are not kept (null) stays so.
UNWIND $ids AS id
MATCH (n:Episode {uuid: id})
WITH n.guild_id AS guild_id, count(*) AS held
MATCH (g:Guild {id: guild_id})
WHERE g.count_episodes IS NOT NULL
SET g.count_episodes = g.count_episodes + $by * held
RETURN g.id AS guild_id, held
