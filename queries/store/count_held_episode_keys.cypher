// How many of these Episode nodes (by key) exist now, per guild: store/count_held_episodes.cypher for a
// statement naming its episodes by key (store/close_episode.cypher; graph/counts.py).
UNWIND $ids AS id
MATCH (n:Episode {key: id})
RETURN n.guild_id AS guild_id, count(*) AS count
