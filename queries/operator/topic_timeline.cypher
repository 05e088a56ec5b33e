// title: A topic's timeline
// answers: Every fact about a member, or about or mentioning an entity, newest valid_at first: whether it held at `at`, what it superseded and what superseded it, who reported it and from which message.
// params: guild_id (string, required) - the guild; user_id (string, optional) - a member's Discord user id; entity_key (string, optional) - an entity's name in lower case without punctuation or a leading article (server move); at (datetime, optional) - as of this time: the facts valid by then, and whether each still held (default: now); now (datetime, optional) - the current time, when at is not given (default: the engine's clock); channel_id (string, optional) - only what may be recalled in this channel: '' for what the shared channels hold, null for every channel; limit (int, optional) - the newest this many facts (default 100)
// Give user_id or entity_key (both: the facts of both). held is false for a fact ended by then (its invalid_at,
// its expires_at, counted from when it held, or its closing, expired_at: graph/models.py `holds`), now as at any
// date; superseded_by and supersedes name the facts on either side of a SUPERSEDES edge
// ({uuid, text} each); reporters are {id, name, at, message_id}, sources {message_id, channel_id}.
// Channel scope as queries/context/facts.cypher: a fact only when a channel of its stored audience is 'shared',
// $channel_id or its parent, and only the reporters and sources there; the facts on either side of a SUPERSEDES
// edge only when they may be seen there too (else they are left out).
// Two parts, each from its subject's index (a null key matches nothing and is never scanned).
OPTIONAL MATCH (here:Channel {id: coalesce($channel_id, '')})
WITH COLLECT { MATCH (c:Channel) WHERE c.guild_id = $guild_id AND c.mode = 'shared' RETURN c.id } + [$channel_id, here.parent_id] AS visible
MATCH (s:User {id: coalesce($user_id, '')})<-[:ABOUT]-(f:Fact)
WHERE f.guild_id = $guild_id AND ($at IS NULL OR f.valid_at <= $at)
WITH visible, f WHERE $channel_id IS NULL OR any(a IN f.audience WHERE a IN visible)
WITH visible, f, [x IN [(f)-[:FROM]->(m:Message) | {message_id: m.id, channel_id: m.channel_id}] WHERE $channel_id IS NULL OR x.channel_id IN visible] AS shown
RETURN f.uuid AS uuid, f.text AS text, f.valid_at AS valid_at, f.invalid_at AS invalid_at, f.expired_at AS expired_at,
       (f.invalid_at IS NULL OR f.invalid_at > coalesce($at, $now, datetime()))
         AND (f.expires_at IS NULL OR f.expires_at > coalesce($at, $now, datetime()))
         AND (f.expired_at IS NULL OR f.expired_at > coalesce($at, $now, datetime())) AS held,
       f.expires_at AS expires_at,
       [(f)-[:SUPERSEDES]->(old:Fact) WHERE $channel_id IS NULL OR any(a IN old.audience WHERE a IN visible) | {uuid: old.uuid, text: old.text}] AS supersedes,
       [(f)<-[:SUPERSEDES]-(newer:Fact) WHERE $channel_id IS NULL OR any(a IN newer.audience WHERE a IN visible) | {uuid: newer.uuid, text: newer.text}] AS superseded_by,
       [(f)-[r:REPORTED_BY]->(rep:User) WHERE $channel_id IS NULL OR coalesce(r.message_id, '') = '' OR r.message_id IN [x IN shown | x.message_id] |
         {id: rep.id, name: coalesce(head([(rep)-[mb:MEMBER_OF]->(:Guild {id: $guild_id}) | mb.display_name]), rep.display_name, rep.name), at: r.at, message_id: r.message_id}] AS reporters,
       shown AS sources
ORDER BY valid_at DESC, uuid
LIMIT coalesce($limit, 100)
UNION
OPTIONAL MATCH (here:Channel {id: coalesce($channel_id, '')})
WITH COLLECT { MATCH (c:Channel) WHERE c.guild_id = $guild_id AND c.mode = 'shared' RETURN c.id } + [$channel_id, here.parent_id] AS visible
MATCH (s:Entity {name_key: coalesce($entity_key, '')})<-[:ABOUT|MENTIONS]-(f:Fact)
WHERE s.guild_id = $guild_id AND f.guild_id = $guild_id AND ($at IS NULL OR f.valid_at <= $at)
WITH DISTINCT visible, f
WHERE $channel_id IS NULL OR any(a IN f.audience WHERE a IN visible)
WITH visible, f, [x IN [(f)-[:FROM]->(m:Message) | {message_id: m.id, channel_id: m.channel_id}] WHERE $channel_id IS NULL OR x.channel_id IN visible] AS shown
RETURN f.uuid AS uuid, f.text AS text, f.valid_at AS valid_at, f.invalid_at AS invalid_at, f.expired_at AS expired_at,
       (f.invalid_at IS NULL OR f.invalid_at > coalesce($at, $now, datetime()))
         AND (f.expires_at IS NULL OR f.expires_at > coalesce($at, $now, datetime()))
         AND (f.expired_at IS NULL OR f.expired_at > coalesce($at, $now, datetime())) AS held,
       f.expires_at AS expires_at,
       [(f)-[:SUPERSEDES]->(old:Fact) WHERE $channel_id IS NULL OR any(a IN old.audience WHERE a IN visible) | {uuid: old.uuid, text: old.text}] AS supersedes,
       [(f)<-[:SUPERSEDES]-(newer:Fact) WHERE $channel_id IS NULL OR any(a IN newer.audience WHERE a IN visible) | {uuid: newer.uuid, text: newer.text}] AS superseded_by,
       [(f)-[r:REPORTED_BY]->(rep:User) WHERE $channel_id IS NULL OR coalesce(r.message_id, '') = '' OR r.message_id IN [x IN shown | x.message_id] |
         {id: rep.id, name: coalesce(head([(rep)-[mb:MEMBER_OF]->(:Guild {id: $guild_id}) | mb.display_name]), rep.display_name, rep.name), at: r.at, message_id: r.message_id}] AS reporters,
       shown AS sources
ORDER BY valid_at DESC, uuid
LIMIT coalesce($limit, 100)
