// One guild's kept counts (graph/counts.py), one node read; null where not kept yet (a guild node made again, a
// store made before they were): the reader recounts. `activity` says whether its days (ActivityDay) are kept too.
OPTIONAL MATCH (g:Guild {id: $guild_id})
RETURN g.id AS guild_id, g.count_facts AS facts, g.count_entities AS entities, g.count_messages AS messages,
       g.count_episodes AS episodes, g.activity_kept AS activity
