// How many of these Episode nodes (by uuid) exist now, per guild: read before and after a statement that creates or
// deletes them, so the guild's kept counts move by the difference in the same transaction (graph/counts.py).
UNWIND $ids AS id
MATCH (n:Episode {uuid: id})
RETURN n.guild_id AS guild_id, count(*) AS count
