"""What a write checks inside its own transaction, on the floor below graph/writes/: an opted-out member is never
stored (`optout_guard`), consent records keyed by the graph's salt (`consent`), the names a member's forget
reaches (`name_scope`), and where a fact may be recalled (`scope`). They import no other room of graph/."""
