// A sample of one guild's messages, through the guild index: what tells the languages the guild speaks
// (common/names.py spoken_languages), so that a common word of any of them is no one's name.
MATCH (m:Message {guild_id: $guild_id})
RETURN m.content AS text
LIMIT $limit
