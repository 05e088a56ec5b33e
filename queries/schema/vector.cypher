// Vector index over fact embeddings ($dimensions: EMBEDDINGS_DIMENSION, cosine), Neo4j 5.
// ArcadeDB: arcadedb_vector.sql beside this file.
CREATE VECTOR INDEX fact_embedding IF NOT EXISTS FOR (n:Fact) ON n.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
