// A member's data access request: which of the channels facts came from @everyone can view (and their parent,
// for a thread), each through the channel's unique id.
UNWIND $ids AS id
MATCH (c:Channel {id: id})
RETURN c.id AS id, c.parent_id AS parent_id, coalesce(c.visibility = 'public', false) AS public
