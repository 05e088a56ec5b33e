"""Who may see what, in one home. The guards a write runs (`guards/`) stand below graph/writes/; the operations
stand above it and write through it: forget-me and its audit (`forget`, `deletion`, `audit`, `requests`, `purge`),
a deleted or edited message's erasure (`erasure`), retention, export, channel memory modes (`channels`), the
per-member fact cap (`user_cap`), and the opt-outs held to operators' reads (`opted_out`)."""
