// The kept counts of the guilds holding these Fact nodes (by uuid) moved by how many of them exist now, times $by:
// -1 just before a statement that creates, deletes or closes them, +1 just after it, so that each guild's count
// moves by the difference in the same transaction (graph/counts.py). The guild's days (ActivityDay, key
// '<guild id>|<day>|') of their created_key (learned) and closed_key (closed) move with it: the UTC days since 1970
// of the keys' epoch millis ('<guild id>|<10^15 + millis>', graph/reads/activity.py). A guild whose counts are not
// kept (null) stays so, its days too: its recount sets both.
UNWIND $ids AS id
MATCH (n:Fact {uuid: id})
WITH n.guild_id AS guild_id,
     CASE WHEN n.created_key IS NULL THEN null
          ELSE toInteger(floor((toInteger(split(n.created_key, '|')[1]) - 1000000000000000) / 86400000.0)) END AS learned,
     CASE WHEN n.closed_key IS NULL THEN null
          ELSE toInteger(floor((toInteger(split(n.closed_key, '|')[1]) - 1000000000000000) / 86400000.0)) END AS closed
WITH guild_id, learned, closed, count(*) AS held
MATCH (g:Guild {id: guild_id})
WHERE g.count_facts IS NOT NULL
FOREACH (day IN CASE WHEN learned IS NULL THEN [] ELSE [learned] END |
  MERGE (a:ActivityDay {key: guild_id + '|' + toString(day) + '|'})
  ON CREATE SET a.guild_id = guild_id, a.day = day, a.channel_id = '', a.messages = 0, a.learned = 0, a.closed = 0
  SET a.learned = a.learned + $by * held)
FOREACH (day IN CASE WHEN closed IS NULL THEN [] ELSE [closed] END |
  MERGE (a:ActivityDay {key: guild_id + '|' + toString(day) + '|'})
  ON CREATE SET a.guild_id = guild_id, a.day = day, a.channel_id = '', a.messages = 0, a.learned = 0, a.closed = 0
  SET a.closed = a.closed + $by * held)
WITH g, sum(held) AS held
SET g.count_facts = g.count_facts + $by * held
RETURN g.id AS guild_id, held
