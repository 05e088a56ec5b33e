"""The read path: gathering the reply context from the graph (`gather`), ranking it (`ranking`) and
assembling it within a token budget (`assemble`)."""
