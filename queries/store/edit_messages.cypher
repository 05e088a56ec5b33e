// Stored messages met again with a later `edited_at`: the copy is an edit of the text.
UNWIND $rows AS row
MATCH (m:Message {id: row.id})
WHERE m.edited_at IS NULL OR datetime(row.edited_at) > m.edited_at
SET m.content = row.content, m.edited_at = datetime(row.edited_at)
