// A memory command said in a message: that message goes (if stored and the member's); then what is left
// of the member: messages they sent, facts about, mentioning or reported by them.
MATCH (u:User {id: $user_id})
CALL (u) {
  MATCH (u)-[:SENT]->(m:Message {id: $message_id})
  DETACH DELETE m
  RETURN count(*) AS deleted
}
RETURN deleted,
       COUNT { (u)-[:SENT]->(:Message) } AS messages,
       COUNT { (u)<-[:ABOUT|MENTIONS|REPORTED_BY]-(:Fact) } AS facts
