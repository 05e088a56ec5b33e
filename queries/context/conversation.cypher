// The conversation a reply belongs to, in one read: the author; the channel's last episodes before
// $at (summaries of the extracted ones that ended before $at); the channel's last messages before $at, drawn from those
// episodes and from the messages not yet in one (so the read never scans the channel's history); and
// the chain of messages $reply_to_id replies to (none when it is null: matching {id: null} scans). The channel's
// earlier messages matching the reply are searched by context/recalled.cypher, a statement of its own (ArcadeDB
// ranges over an index only in a statement with one MATCH). Both the guild and the channel are matched, so a
// message of another guild (or of another channel, which readers may not be allowed to see) never comes back.
// $at is a native datetime; datetimes come back as ISO strings (much cheaper to carry over Bolt from ArcadeDB
// than temporal values).
// And a quiet channel's older messages matching the reply (issue 19; none without $words): context/recalled.cypher
// recalls only among the channel's messages of its last days (graph.store.RECALL_SPAN); this part looks further
// back through the channel's windows rather than its messages: the messages of its last $older_episodes episodes
// that ended before $before (a native datetime), so the rows read are bounded by the windows' size, never by the
// channel's history. As there, a message holds words of $words (one Java regex each, $pattern any of them) and scores
// their rarity among the messages read (BM25's idf, or their count without $rarity), ties to the newest; the best
// $recall come back with their score, and each of the best $near with the message just before and just after it
// among those read (`near`: its match's id); only messages of $guild_id and $channel_id. One statement with the rest
// of the conversation rather than one of its own: a reply's reads each cost a round trip and the driver's work.
// Sort keys are projected before each ORDER BY (ArcadeDB evaluates the keys at every comparison; a variable
// costs less than a property read).
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
  MATCH (:Message {id: reply_to_id})-[:REPLIES_TO*0..40]->(m:Message)
  WITH DISTINCT m WHERE m.guild_id = $guild_id
  MATCH (u:User)-[:SENT]->(m)
  WITH m, u, m.created_at AS created ORDER BY created DESC LIMIT $chain
  RETURN collect({id: m.id, channel_id: m.channel_id, author_id: m.author_id, content: m.content,
                  created_at: toString(m.created_at), reply_to_id: m.reply_to_id,
                  author_name: u.name, author_display_name: coalesce(head([(u)-[mb:MEMBER_OF]->(:Guild {id: m.guild_id}) | mb.display_name]), u.display_name), author_is_bot: u.is_bot}) AS chain
}
CALL () {
  MATCH (e:Episode {channel_id: $channel_id})
  WHERE size($words) > 0 AND e.guild_id = $guild_id AND e.ended_at < $before
  WITH e, e.ended_at AS ended ORDER BY ended DESC LIMIT $older_episodes
  MATCH (m:Message)-[:IN_EPISODE]->(e)
  WITH m WHERE m.guild_id = $guild_id AND m.channel_id = $channel_id AND m.created_at < $before
  WITH m, m.created_at AS t, m.id AS id ORDER BY t DESC, id DESC
  WITH collect(m) AS span
  WITH span, [i IN range(0, size(span) - 1) WHERE span[i].content =~ $pattern] AS hits
  WITH span, [i IN hits | [i, [w IN range(0, size($words) - 1) WHERE span[i].content =~ $words[w]]]] AS hits
  WITH span, hits, [w IN range(0, size($words) - 1) | size([h IN hits WHERE w IN h[1]])] AS held
  UNWIND hits AS h
  WITH span, h[0] AS i, reduce(s = 0.0, w IN h[1] | s + CASE WHEN $rarity THEN log(1.0 + (size(span) - held[w] + 0.5) / (held[w] + 0.5)) ELSE 1.0 END) AS score
  ORDER BY score DESC, i
  LIMIT $recall
  WITH span, collect([i, score]) AS best
  UNWIND range(0, size(best) - 1) AS rank
  UNWIND [[best[rank][0], best[rank][1], null]]
         + CASE WHEN rank < $near THEN [[best[rank][0] - 1, null, best[rank][0]], [best[rank][0] + 1, null, best[rank][0]]] ELSE [] END AS row
  WITH span, row WHERE row[0] >= 0 AND row[0] < size(span)
  WITH span[row[0]] AS m, row[1] AS score, CASE WHEN row[2] IS NULL THEN null ELSE span[row[2]].id END AS near
  MATCH (u:User)-[:SENT]->(m)
  RETURN collect({id: m.id, channel_id: m.channel_id, author_id: m.author_id, content: m.content,
                  created_at: toString(m.created_at), reply_to_id: m.reply_to_id,
                  author_name: u.name, author_display_name: coalesce(head([(u)-[mb:MEMBER_OF]->(:Guild {id: m.guild_id}) | mb.display_name]), u.display_name), author_is_bot: u.is_bot,
                  score: score, near: near}) AS older
}
RETURN author {.id, .name, .is_bot,
               display_name: coalesce(head([(author)-[mb:MEMBER_OF]->(:Guild {id: $guild_id}) | mb.display_name]),
                                      author.display_name)} AS author,
       [e IN episodes WHERE e.status = 'done' AND e.summary <> '' AND e.ended_at < $at | [toString(e.ended_at), e.summary]] AS summaries,
       recent, chain, older
