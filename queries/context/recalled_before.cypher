// A quiet channel's older messages matching a reply: context/recalled.cypher recalls only among the channel's
// messages of its last days (RecallTuning.span); this read looks further back, through the channel's
// windows rather than its messages: the messages of its last $episodes episodes that ended before $before (a
// native datetime), so the rows read are bounded by the windows' size, never by the channel's history.
// As there, a message holds words of $words (one Java regex each, $pattern any of them) and scores their rarity
// among the messages read (BM25's idf), with $passage those of the messages just before and after it too, ties to
// the newest; the best $recall come back with their score, and each of the best $near with the message just before
// and just after it among those read (`near`: its match's id); only messages of $guild_id and $channel_id.
// Datetimes come back as ISO strings.
// A statement of its own, not a CALL inside context/conversation.cypher: ArcadeDB gives a query's in-heap buffers
// (this sort and collect of the windows' messages) back to its shared query heap budget when the query closes, but
// not those of a CALL subquery's sort until the garbage collector finds them, so as a CALL each reply kept a few
// megabytes of the budget and replies failed once it was spent (tests/faults/test_query_heap_budget.py).
MATCH (e:Episode {channel_id: $channel_id})
WHERE e.guild_id = $guild_id AND e.ended_at < $before
WITH e, e.ended_at AS ended ORDER BY ended DESC LIMIT $episodes
MATCH (m:Message)-[:IN_EPISODE]->(e)
WITH m WHERE m.guild_id = $guild_id AND m.channel_id = $channel_id AND m.created_at < $before
WITH m, m.created_at AS t, m.id AS id ORDER BY t DESC, id DESC
WITH collect(m) AS span
WITH span, [i IN range(0, size(span) - 1) WHERE span[i].content =~ $pattern] AS hits
WITH span, [i IN hits | {i: i, held: [w IN range(0, size($words) - 1) WHERE span[i].content =~ $words[w]]}] AS hits
WITH span, hits, [w IN range(0, size($words) - 1) | size([h IN hits WHERE w IN h.held])] AS held
UNWIND range(0, size(hits) - 1) AS j
WITH span, held, hits[j].i AS i,
     hits[j].held + CASE WHEN $passage AND j > 0 AND hits[j - 1].i = hits[j].i - 1 THEN hits[j - 1].held ELSE [] END
                  + CASE WHEN $passage AND j < size(hits) - 1 AND hits[j + 1].i = hits[j].i + 1 THEN hits[j + 1].held ELSE [] END AS held_here
WITH span, i, reduce(s = 0.0, w IN range(0, size($words) - 1) | s + CASE WHEN NOT w IN held_here THEN 0.0 WHEN $rarity THEN log(1.0 + (size(span) - held[w] + 0.5) / (held[w] + 0.5)) ELSE 1.0 END) AS score
ORDER BY score DESC, i
LIMIT $recall
WITH span, collect({i: i, score: score}) AS best
UNWIND range(0, size(best) - 1) AS rank
UNWIND [{at: best[rank].i, score: best[rank].score, near: null}]
       + CASE WHEN rank < $near THEN [{at: best[rank].i - 1, score: null, near: best[rank].i},
                                      {at: best[rank].i + 1, score: null, near: best[rank].i}] ELSE [] END AS row
WITH span, row WHERE row.at >= 0 AND row.at < size(span)
WITH span[row.at] AS m, row.score AS score, CASE WHEN row.near IS NULL THEN null ELSE span[row.near].id END AS near
MATCH (u:User)-[:SENT]->(m)
RETURN collect({id: m.id, channel_id: m.channel_id, author_id: m.author_id, content: m.content,
                created_at: toString(m.created_at), reply_to_id: m.reply_to_id,
                author_name: u.name, author_display_name: coalesce(head([(u)-[mb:MEMBER_OF]->(:Guild {id: m.guild_id}) | mb.display_name]), u.display_name), author_is_bot: u.is_bot,
                score: score, near: near}) AS recalled
