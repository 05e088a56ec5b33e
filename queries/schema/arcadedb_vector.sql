-- The vector index of vector.cypher, in ArcadeDB SQL.
CREATE PROPERTY Fact.embedding IF NOT EXISTS ARRAY_OF_FLOATS;
CREATE INDEX fact_embedding IF NOT EXISTS ON Fact (embedding) LSM_VECTOR METADATA {dimensions: {dimensions}, similarity: 'COSINE'};
