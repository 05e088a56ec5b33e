// Bench only (bench/scale.py): how many facts are about a user (before forget-me).
MATCH (u:User {id: $user_id})<-[:ABOUT]-(f:Fact)
RETURN count(f) AS facts
