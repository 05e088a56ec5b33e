// Every guild's kept counts (graph/counts.py), for `grapevine stats --recount`: null where not kept yet.
MATCH (g:Guild)
RETURN g.id AS guild_id, g.count_facts AS facts, g.count_entities AS entities, g.count_messages AS messages,
       g.count_episodes AS episodes, g.activity_kept AS activity
ORDER BY guild_id
