"""The write path: conversation windows, the extraction prompt and its answer, deterministic resolution,
the LLM and embeddings adapters, the pipeline, live windows and history import."""
