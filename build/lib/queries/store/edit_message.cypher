// An edit: new content and edited_at.
MATCH (m:Message {id: $id})
SET m.content = $content, m.edited_at = datetime($edited_at)
RETURN m.id AS id
