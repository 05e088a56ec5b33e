// The episode is written: its summary, counts and status `done`.
MATCH (e:Episode {key: $key})
SET e.status = 'done', e.summary = $summary, e.fact_count = $fact_count, e.error = null,
    e.attempts = e.attempts + 1, e.extracted_at = datetime($now)
RETURN e.uuid AS uuid
