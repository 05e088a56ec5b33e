// The conversation a reply belongs to, in one read: the author; the channel's last episodes before
// $at (summaries of the extracted ones that ended before $at); the channel's last messages before $at, drawn from those
// episodes and from the messages not yet in one (so the read never scans the channel's history); and
// the chain of messages $reply_to_id replies to (none when it is null: matching {id: null} scans), of the channels
// whose messages may be shown here (a 'shared' channel, this one or its parent, as graph/scope.py). The channel's
// earlier messages matching the reply are searched by context/recalled.cypher, a statement of its own (ArcadeDB
// ranges over an index only in a statement with one MATCH). Both the guild and the channel are matched, so a
// message of another guild (or of another channel, which readers may not be allowed to see) never comes back.
// $at is a native datetime; datetimes come back as ISO strings (much cheaper to carry over Bolt from ArcadeDB
// than temporal values).
// A quiet channel's older messages matching the reply are searched by context/recalled_before.cypher, beside it.
OPTIONAL MATCH (author:User {id: $author_id})
CALL () {
  MATCH (e:Episode {channel_id: $channel_id})
  WHERE e.guild_id = $guild_id AND e.started_at < $at
  WITH e, e.ended_at AS ended ORDER BY ended DESC LIMIT $episodes
  RETURN collect(e) AS episodes
}
CALL (episodes) {
  CALL (episodes) {
    UNWIND episodes AS e
    MATCH (m:Message)-[:IN_EPISODE]->(e)
    RETURN m
    UNION
    MATCH (m:Message {buffered: true})
    WHERE m.channel_id = $channel_id
    RETURN m
  }
  WITH m WHERE m.guild_id = $guild_id AND m.created_at < $at AND ($skip_id IS NULL OR m.id <> $skip_id)
  WITH m, m.created_at AS created, m.id AS id ORDER BY created DESC, id DESC LIMIT $messages
  MATCH (u:User)-[:SENT]->(m)
  RETURN collect({id: m.id, channel_id: m.channel_id, author_id: m.author_id, content: m.content,
                  created_at: toString(m.created_at), reply_to_id: m.reply_to_id,
                  author_name: u.name, author_display_name: coalesce(head([(u)-[mb:MEMBER_OF]->(:Guild {id: m.guild_id}) | mb.display_name]), u.display_name), author_is_bot: u.is_bot}) AS recent
}
CALL () {
  UNWIND CASE WHEN $reply_to_id IS NULL THEN [] ELSE [$reply_to_id] END AS reply_to_id
  OPTIONAL MATCH (here:Channel {id: $channel_id})
  WITH reply_to_id, COLLECT { MATCH (c:Channel) WHERE c.guild_id = $guild_id AND c.mode = 'shared' RETURN c.id } + [$channel_id, here.parent_id] AS visible
  MATCH (:Message {id: reply_to_id})-[:REPLIES_TO*0..40]->(m:Message)
  WITH DISTINCT m, visible WHERE m.guild_id = $guild_id AND m.channel_id IN visible
  MATCH (u:User)-[:SENT]->(m)
  WITH m, u, m.created_at AS created ORDER BY created DESC LIMIT $chain
  RETURN collect({id: m.id, channel_id: m.channel_id, author_id: m.author_id, content: m.content,
                  created_at: toString(m.created_at), reply_to_id: m.reply_to_id,
                  author_name: u.name, author_display_name: coalesce(head([(u)-[mb:MEMBER_OF]->(:Guild {id: m.guild_id}) | mb.display_name]), u.display_name), author_is_bot: u.is_bot}) AS chain
}
RETURN author {.id, .name, .is_bot,
               display_name: coalesce(head([(author)-[mb:MEMBER_OF]->(:Guild {id: $guild_id}) | mb.display_name]),
                                      author.display_name)} AS author,
       [e IN episodes WHERE e.status = 'done' AND e.summary <> '' AND e.ended_at < $at | {ended_at: toString(e.ended_at), summary: e.summary}] AS summaries,
       recent, chain
