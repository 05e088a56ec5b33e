// Set an episode's status (failed with its reason, skipped, pending again).
MATCH (e:Episode {key: $key})
SET e.status = $status, e.error = $error, e.attempts = e.attempts + $attempt,
    e.prompt_tokens = coalesce(e.prompt_tokens, 0) + $prompt_tokens,
    e.completion_tokens = coalesce(e.completion_tokens, 0) + $completion_tokens,
    e.updated_at = datetime($now)
RETURN e.status AS status, e.attempts AS attempts
