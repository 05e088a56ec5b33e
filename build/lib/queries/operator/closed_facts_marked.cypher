// title: Closed facts, marked
// answers: The guild's closed facts (superseded or retired) with why and when they closed and the fact that replaced them; the graph view shows fact -> newer fact.
// params: guild_id (string, required) - the guild; limit (int, optional) - how many rows (default 100)
// GraSS cannot style by property: the `mark` column says closed in the table view, and facts the
// store labels :Closed are drawn grey by docker/grapevine.grass in the graph view.
MATCH (f:Fact {guild_id: $guild_id})
WHERE f.invalid_at IS NOT NULL OR f.expired_at IS NOT NULL
OPTIONAL MATCH replaced = (newer:Fact)-[:SUPERSEDES]->(f)
WITH f, replaced, newer
ORDER BY f.expired_at DESC, f.uuid
LIMIT coalesce($limit, 100)
RETURN f AS fact, replaced,
       {closed: true, reason: CASE WHEN newer IS NULL THEN 'expired' ELSE 'superseded' END,
        text: f.text, invalid_at: f.invalid_at, closed_at: f.expired_at, replaced_by: newer.text} AS mark
