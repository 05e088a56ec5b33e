// title: Who knows about a topic
// answers: The members who reported facts matching the topic's words or about (or mentioning) an entity it names, and who said matching words in the guild's windows: one row per fact reported or message said, with the message it came from.
// params: guild_id (string, required) - the guild; topic (words, required) - the topic's words, every one of them matched as a word (kubernetes, or server move); channel_id (string, optional) - only what may be recalled in this channel: '' for what the shared channels hold, null for every channel; hits (int, optional) - matches read from each full-text index, then from each of its three parts (default 200)
// `grapevine who-knows` and the bot rank the members by how much and how recently, and leave out opted-out
// members (an opt-out is kept as a keyed hash, which Cypher cannot compute). Bots are left out.
// Three parts, each from one full-text index ($hits best matches of the guild: its guild_term is a required term of
// the search, queries/schema/fulltext.cypher) then a few hops:
// facts by their text, facts about or mentioning the entities named, and messages of closed windows
// (IN_EPISODE). Channel scope as queries/context/facts.cypher: a fact only when a channel of its stored audience
// is 'shared', $channel_id or its parent, and its report counts only when the report's message is there too (or
// it has none, as a slash command's); a message only there.
OPTIONAL MATCH (here:Channel {id: coalesce($channel_id, '')})
WITH COLLECT { MATCH (c:Channel) WHERE c.guild_id = $guild_id AND c.mode = 'shared' RETURN c.id } + [$channel_id, here.parent_id] AS visible
CALL db.index.fulltext.queryNodes('fact_text', '+guild_term:g' + replace($guild_id, ':', '') + ' +text:(' + $topic + ')', {limit: coalesce($hits, 200)}) YIELD node
WITH visible, node AS f WHERE f.guild_id = $guild_id AND ($channel_id IS NULL OR any(a IN f.audience WHERE a IN visible))
MATCH (f)-[r:REPORTED_BY]->(u:User)
WHERE NOT coalesce(u.is_bot, false)
WITH visible, f, r, u, head([(f)-[:FROM]->(m:Message) WHERE m.id = r.message_id | m]) AS m
WHERE $channel_id IS NULL OR m.channel_id IN visible OR coalesce(r.message_id, '') = ''
RETURN u.id AS user_id, coalesce(head([(u)-[mb:MEMBER_OF]->(:Guild {id: $guild_id}) | mb.display_name]), u.display_name, u.name) AS member,
       'fact' AS kind, f.uuid AS ref, f.text AS what, r.at AS at, m.id AS message_id, m.channel_id AS channel_id
ORDER BY at DESC
LIMIT coalesce($hits, 200)
UNION
OPTIONAL MATCH (here:Channel {id: coalesce($channel_id, '')})
WITH COLLECT { MATCH (c:Channel) WHERE c.guild_id = $guild_id AND c.mode = 'shared' RETURN c.id } + [$channel_id, here.parent_id] AS visible
CALL db.index.fulltext.queryNodes('entity_names', '+guild_term:g' + replace($guild_id, ':', '') + ' +(name:(' + $topic + ') alias_text:(' + $topic + '))',
                                   {limit: coalesce($hits, 200)}) YIELD node
WITH visible, node AS e WHERE e.guild_id = $guild_id
MATCH (e)<-[:ABOUT|MENTIONS]-(f:Fact)
WHERE f.guild_id = $guild_id AND ($channel_id IS NULL OR any(a IN f.audience WHERE a IN visible))
MATCH (f)-[r:REPORTED_BY]->(u:User)
WHERE NOT coalesce(u.is_bot, false)
WITH visible, f, r, u, head([(f)-[:FROM]->(m:Message) WHERE m.id = r.message_id | m]) AS m
WHERE $channel_id IS NULL OR m.channel_id IN visible OR coalesce(r.message_id, '') = ''
RETURN u.id AS user_id, coalesce(head([(u)-[mb:MEMBER_OF]->(:Guild {id: $guild_id}) | mb.display_name]), u.display_name, u.name) AS member,
       'fact' AS kind, f.uuid AS ref, f.text AS what, r.at AS at, m.id AS message_id, m.channel_id AS channel_id
ORDER BY at DESC
LIMIT coalesce($hits, 200)
UNION
OPTIONAL MATCH (here:Channel {id: coalesce($channel_id, '')})
WITH COLLECT { MATCH (c:Channel) WHERE c.guild_id = $guild_id AND c.mode = 'shared' RETURN c.id } + [$channel_id, here.parent_id] AS visible
CALL db.index.fulltext.queryNodes('message_content', '+guild_term:g' + replace($guild_id, ':', '') + ' +content:(' + $topic + ')', {limit: coalesce($hits, 200)}) YIELD node
WITH visible, node AS m
WHERE m.guild_id = $guild_id AND ($channel_id IS NULL OR m.channel_id IN visible) AND size([(m)-[:IN_EPISODE]->(ep:Episode) | ep]) > 0
MATCH (u:User)-[:SENT]->(m)
WHERE NOT coalesce(u.is_bot, false)
RETURN u.id AS user_id, coalesce(head([(u)-[mb:MEMBER_OF]->(:Guild {id: $guild_id}) | mb.display_name]), u.display_name, u.name) AS member,
       'message' AS kind, m.id AS ref, m.content AS what, m.created_at AS at, m.id AS message_id, m.channel_id AS channel_id
ORDER BY at DESC
LIMIT coalesce($hits, 200)
