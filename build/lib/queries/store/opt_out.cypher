// A member opted out: only a keyed hash of their id is kept, so that nothing of theirs is stored.
MERGE (o:OptOut {key: $key})
ON CREATE SET o.at = datetime($now)
