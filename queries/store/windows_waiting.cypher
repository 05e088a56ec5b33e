// `grapevine stats`: per guild, the windows that wait for extraction: pending (never tried, or left as they were
// while the LLM was unreachable: parked), failed that the next `ingest --pending` retries, and failed for good
// ($max_attempts reached: only `--retry-failed` tries them). Read through the episode_status index.
MATCH (ep:Episode)
WHERE ep.status IN ['pending', 'failed']
WITH ep.guild_id AS guild_id, ep.status AS status, coalesce(ep.attempts, 0) >= $max_attempts AS spent
RETURN guild_id,
       sum(CASE WHEN status = 'pending' THEN 1 ELSE 0 END) AS pending,
       sum(CASE WHEN status = 'failed' AND NOT spent THEN 1 ELSE 0 END) AS failed,
       sum(CASE WHEN status = 'failed' AND spent THEN 1 ELSE 0 END) AS failed_for_good
ORDER BY guild_id
