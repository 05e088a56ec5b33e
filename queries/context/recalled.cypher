// The channel's earlier messages holding any word of $words (one pattern per word), most words first, then
// newest, with the count as their score: looked for among the channel's last $recall_window messages of the
// span channel_time $recall_from..$recall_to (one index range, graph/keys.py), so the search costs what the
// channel's recent traffic costs, never its history nor the guild's. $pattern matches a content with any of
// the words. The guild is matched too: a message of another guild never comes back.
// A statement of its own, its one MATCH the range: ArcadeDB plans a statement with one MATCH by cost, and
// ranges over the index only then; after another MATCH, OPTIONAL MATCH or inside a CALL subquery it scans
// every message of the graph (10,000 rows read per reply at 100,000 facts, 100,000 at 1,000,000: PROFILE,
// tests/context/test_context_reads.py). Its author comes by pattern comprehension from the message for the
// same reason (a second MATCH would plan the statement without indexes).
// Sort keys are projected before each ORDER BY (ArcadeDB evaluates the keys at every comparison).
MATCH (m:Message)
WHERE m.channel_time >= $recall_from AND m.channel_time < $recall_to
WITH m, m.channel_time AS t ORDER BY t DESC LIMIT $recall_window
WITH m, t WHERE m.guild_id = $guild_id AND m.content =~ $pattern
WITH m, t, m.id AS id, size([word IN $words WHERE m.content =~ word]) AS score
ORDER BY score DESC, t DESC, id
LIMIT $recall
WITH m, score, head([(m)<-[:SENT]-(u:User) | u]) AS u WHERE u IS NOT NULL
RETURN collect({id: m.id, channel_id: m.channel_id, author_id: m.author_id, content: m.content,
                created_at: toString(m.created_at), reply_to_id: m.reply_to_id,
                author_name: u.name, author_display_name: coalesce(head([(u)-[mb:MEMBER_OF]->(:Guild {id: m.guild_id}) | mb.display_name]), u.display_name), author_is_bot: u.is_bot,
                score: score}) AS recalled
