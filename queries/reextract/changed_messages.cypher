// The messages of an episode waiting to be extracted again, with the edit each waits for, and the memory mode
// of its channel ('off': nothing is extracted there).
MATCH (e:Episode {key: $key})<-[:IN_EPISODE]-(m:Message)
WHERE m.reextract IS NOT NULL
OPTIONAL MATCH (c:Channel {id: e.channel_id})
RETURN m.id AS id, m.reextract AS edit, coalesce(c.mode, 'private') AS mode
ORDER BY m.created_at, m.id
