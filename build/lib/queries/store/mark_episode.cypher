// Set an episode's status (failed with its reason, skipped, pending again).
MATCH (e:Episode {key: $key})
SET e.status = $status, e.error = $error, e.attempts = e.attempts + $attempt,
    e.updated_at = datetime($now)
RETURN e.status AS status, e.attempts AS attempts
