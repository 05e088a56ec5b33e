"""Extraction: a window's prompt (`window_prompt`), several windows' (`batch_prompt`), when windows wait to go
together (`batch_rule`), the calls (`window`, `batch`, `reextraction`), the deterministic resolution of an answer
against its prompt's refs (`resolution`), and what a call that gives no answer does to its work (`on_error`)."""
