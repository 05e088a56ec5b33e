// What extraction cost per guild: windows extracted (done or failed), and the tokens of every attempt.
MATCH (e:Episode)
WHERE e.prompt_tokens IS NOT NULL
RETURN e.guild_id AS guild_id, count(e) AS windows, sum(e.prompt_tokens) AS prompt_tokens,
       sum(e.completion_tokens) AS completion_tokens
ORDER BY guild_id
