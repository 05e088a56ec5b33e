// The channel's earlier messages holding words of $words (one Java regex each, $pattern any of them), best first:
// looked for among the channel's last $recall_window messages of the span channel_time $recall_from..$recall_to
// (one index range, graph/keys.py), so the search costs what the channel's recent traffic costs, never its
// history nor the guild's. The guild is matched too: a message of another guild never comes back.
// A message scores the rarity of the words it holds: each word counts
// ln(1 + (N - n + 0.5) / (n + 0.5)), BM25's idf, with N the messages of the span and n those holding the word,
// so a rare word ranks a message above one holding only a word most messages hold; ties go to the newest.
// With $passage, a message also scores the words the messages just before and after it hold (matches themselves):
// a question and its answer split the question's words between two turns, and together they are the passage
// that answers it.
// The best $recall come back with their score, and each with the message just before and just after it in the
// span (`near`: its match's id), rows this statement read already (no further read).
// A statement of its own, its one MATCH the range: ArcadeDB plans a statement with one MATCH by cost, and
// ranges over the index only then; after another MATCH, OPTIONAL MATCH or inside a CALL subquery it scans
// every message of the graph (10,000 rows read per reply at 100,000 facts, 100,000 at 1,000,000: PROFILE,
// tests/recall/test_context_reads.py). Authors come by pattern comprehension for the same reason.
MATCH (m:Message)
WHERE m.channel_time >= $recall_from AND m.channel_time < $recall_to
WITH m, m.channel_time AS t ORDER BY t DESC LIMIT $recall_window
WITH collect(m) AS span
WITH span, [i IN range(0, size(span) - 1) WHERE span[i].guild_id = $guild_id AND span[i].content =~ $pattern] AS hits
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
WITH m, score, near, head([(m)<-[:SENT]-(u:User) | u]) AS u WHERE u IS NOT NULL AND m.guild_id = $guild_id
RETURN collect({id: m.id, channel_id: m.channel_id, author_id: m.author_id, content: m.content,
                created_at: toString(m.created_at), reply_to_id: m.reply_to_id,
                author_name: u.name, author_display_name: coalesce(head([(u)-[mb:MEMBER_OF]->(:Guild {id: m.guild_id}) | mb.display_name]), u.display_name), author_is_bot: u.is_bot,
                score: score, near: near}) AS recalled
