// Neo4j builds indexes in the background: wait until every one is online before the first query.
CALL db.awaitIndexes(300);
