"""The graph floor: the store and its records, sessions over the engines, forget-me and consent, the
operator queries. Every transaction grapevine runs goes through `graph.store.GraphStore`."""
