// The episode is written: its summary, counts and status `done`.
MATCH (e:Episode {key: $key})
SET e.status = 'done', e.summary = $summary, e.fact_count = $fact_count, e.error = null,
    e.attempts = e.attempts + 1, e.extracted_at = datetime($now),
    e.prompt_tokens = coalesce(e.prompt_tokens, 0) + $prompt_tokens,
    e.completion_tokens = coalesce(e.completion_tokens, 0) + $completion_tokens
RETURN e.uuid AS uuid
