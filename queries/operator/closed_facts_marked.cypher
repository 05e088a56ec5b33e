// title: Closed facts, marked
// answers: The guild's facts closed (superseded or retired) from `since` until `until`, with why and when they closed and the fact that replaced them; the graph view shows fact -> newer fact.
// params: guild_id (string, required) - the guild; since (datetime, required) - closed at or after this; until (datetime, optional) - closed at or before this (default: the current time); limit (int, optional) - how many rows, latest first (default 100)
// GraSS cannot style by property: the `mark` column says closed in the table view, and facts the
// store labels :Closed are drawn grey by docker/grapevine.grass in the graph view.
// One range of the fact_expired_at index from $since (a bare datetime parameter: ArcadeDB ranges over the
// index only for one), then the guild's. One MATCH: ArcadeDB plans an OPTIONAL or a second MATCH without
// the index, so the replacing fact is an optional step of the pattern (*0..1: the fact itself when none).
MATCH replaced = (newer:Fact)-[:SUPERSEDES*0..1]->(f:Fact)
WHERE f.expired_at >= $since AND f.expired_at <= coalesce($until, datetime())
WITH f, replaced, newer
WHERE f.guild_id = $guild_id
WITH f, collect(CASE WHEN length(replaced) = 1 THEN [replaced, newer] END) AS found
WITH f, found[0][0] AS replaced, found[0][1] AS newer
ORDER BY f.expired_at DESC, f.uuid
LIMIT coalesce($limit, 100)
RETURN f AS fact, replaced,
       {closed: true, reason: CASE WHEN newer IS NULL THEN 'expired' ELSE 'superseded' END,
        text: f.text, invalid_at: f.invalid_at, closed_at: f.expired_at, replaced_by: newer.text} AS mark
