// Forget-me, direct messages: everything stored in the member's DM space (the guild "dm:<user id>"):
// its Guild and Channel records, messages (the bot's replies too), episodes, facts and entities.
MATCH (n)
WHERE n.guild_id = $guild_id OR (n:Guild AND n.id = $guild_id)
WITH n, [l IN labels(n) WHERE l <> 'Closed'][0] AS label
DETACH DELETE n
RETURN label, count(*) AS deleted
