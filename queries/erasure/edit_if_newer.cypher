// An edit: new content and edited_at, unless the stored copy is as new (a replayed edit) or says the same.
MATCH (m:Message {id: $id})
WITH m, (m.edited_at IS NULL OR m.edited_at < datetime($edited_at)) AND m.content <> $content AS changed
FOREACH (_ IN CASE WHEN changed THEN [1] ELSE [] END |
  SET m.content = $content, m.edited_at = datetime($edited_at))
RETURN changed
