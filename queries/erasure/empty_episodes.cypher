// Episodes of the given channels left holding no message: nothing of them remains to recall.
MATCH (e:Episode)
WHERE e.guild_id = $guild_id AND e.channel_id IN $channel_ids
  AND NOT EXISTS { MATCH (:Message)-[:IN_EPISODE]->(e) }
DETACH DELETE e
RETURN count(*) AS episodes
