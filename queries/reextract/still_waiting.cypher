// How many of $changes ({id, edit}) still wait for the very edit they were read with: a later edit (or a
// re-extraction already written) leaves fewer, and then nothing is written.
UNWIND $changes AS change
MATCH (m:Message {id: change.id})
WHERE m.reextract = change.edit
RETURN count(m) AS waiting
