// One channel's talk for the read model a process keeps in memory (graph/reads/talk_model.py), with the guild's
// change count (graph/changes.py) read in the same statement: the channel's last $episodes windows by their end
// (and whether it has more: $more is $episodes + 1), their messages and the channel's messages not yet in a window,
// each with its author as context/conversation.cypher gives them (the name they use in this guild) and the message
// its REPLIES_TO link reaches. Only messages of $guild_id; datetimes as ISO strings. Each window says how many
// messages are in it (`size`: of any guild, with or without an author), so the model knows one it holds whole.
OPTIONAL MATCH (g:Guild {id: $guild_id})
CALL () {
  MATCH (e:Episode {channel_id: $channel_id})
  WHERE e.guild_id = $guild_id
  WITH e, e.ended_at AS ended ORDER BY ended DESC LIMIT $more
  RETURN collect(e) AS windows
}
CALL (windows) {
  CALL (windows) {
    UNWIND windows[0..$episodes] AS e
    MATCH (m:Message)-[:IN_EPISODE]->(e)
    RETURN m, e.uuid AS episode
    UNION
    MATCH (m:Message {buffered: true})
    WHERE m.channel_id = $channel_id
    RETURN m, null AS episode
  }
  WITH m, episode WHERE m.guild_id = $guild_id
  MATCH (u:User)-[:SENT]->(m)
  RETURN collect({id: m.id, channel_id: m.channel_id, author_id: m.author_id, content: m.content,
                  created_at: toString(m.created_at), reply_to_id: m.reply_to_id, edited_at: toString(m.edited_at),
                  replies_to: head([(m)-[:REPLIES_TO]->(t:Message) | t.id]), episode: episode,
                  author_name: u.name, author_display_name: coalesce(head([(u)-[mb:MEMBER_OF]->(:Guild {id: m.guild_id}) | mb.display_name]), u.display_name), author_is_bot: u.is_bot}) AS messages
}
RETURN g.changes AS changes, size(windows) > $episodes AS more,
       [e IN windows[0..$episodes] | {uuid: e.uuid, started_at: toString(e.started_at), ended_at: toString(e.ended_at),
                                     status: e.status, summary: e.summary,
                                     size: size([(n:Message)-[:IN_EPISODE]->(e) | n.id])}] AS episodes,
       messages
