// The channels of a guild with their visibility and memory mode (a channel the live bot never saw, such as
// an imported one, has no visibility and is 'private' until someone sets it), and how many messages each holds.
MATCH (c:Channel)
WHERE c.guild_id = $guild_id
RETURN c.id AS id, c.name AS name, c.kind AS kind, c.parent_id AS parent_id, c.visibility AS visibility,
       coalesce(c.mode, 'private') AS mode, coalesce(c.mode_set, false) AS mode_set,
       COUNT { MATCH (m:Message) WHERE m.channel_id = c.id } AS messages
ORDER BY c.name, c.id
