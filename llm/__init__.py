"""The LLM adapter: structured extraction and plain chat over any OpenAI-compatible endpoint, used by ingest's
extraction and the bot's replies alike.

All retrying happens in the client (tenacity; the openai client itself is built with `max_retries=0`), every
call is counted in a `UsageMeter` and logged as an `llm.call` event. One module per concern: `errors`, `meter`,
`breaker`, `output_modes` (the ways to ask a server for JSON), `client`, `probe` (for `grapevine doctor`), `cost`.
"""
