// Vector index over fact embeddings (all-MiniLM-L6-v2: 384 dimensions, cosine), Neo4j 5.
// ArcadeDB: arcadedb_vector.sql beside this file.
CREATE VECTOR INDEX fact_embedding IF NOT EXISTS FOR (n:Fact) ON n.embedding
OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}};
