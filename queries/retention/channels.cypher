// Retention: every channel (and thread), whose history is read one index range at a time.
MATCH (c:Channel)
RETURN c.id AS id
ORDER BY id
