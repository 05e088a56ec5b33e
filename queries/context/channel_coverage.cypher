// From when on a channel's messages are all in the read model (graph/reads/talk_model.py): of the channel's last
// $most messages by their channel_time key (graph/keys.py: $start..$end is every key of the channel), how many were
// read and how many are at or after $oldest (the key of the oldest message the model holds of it), with the guild's
// change count (graph/changes.py), so a reader can tell they were counted at the count the talk was read at.
// Every message is counted, of any guild and with or without an author: the model holds only the guild's with one,
// so a count above what it holds says it does not hold them all.
// A statement of its own, its one MATCH the range (context/recalled.cypher says why); the count by subquery.
MATCH (m:Message)
WHERE m.channel_time >= $start AND m.channel_time < $end
WITH m.channel_time AS t ORDER BY t DESC LIMIT $most
WITH collect(t) AS keys
RETURN head(COLLECT { MATCH (g:Guild {id: $guild_id}) RETURN g.changes }) AS changes, size(keys) AS read,
       size([t IN keys WHERE t >= $oldest]) AS since
