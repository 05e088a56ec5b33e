// The span of the time control for one guild, per axis: valid time runs over its facts' valid_at,
// invalid_at and expires_at and its episodes' start and end (when things were said and held);
// record time over its facts' created_at and expired_at (when grapevine wrote and closed them).
CALL () {
  MATCH (f:Fact {guild_id: $guild_id})
  UNWIND [['valid', f.valid_at], ['valid', f.invalid_at], ['valid', f.expires_at],
          ['recorded', f.created_at], ['recorded', f.expired_at]] AS pair
  RETURN pair[0] AS axis, pair[1] AS t
  UNION ALL
  MATCH (ep:Episode {guild_id: $guild_id})
  UNWIND [ep.started_at, ep.ended_at] AS t
  RETURN 'valid' AS axis, t
}
WITH axis, t
WHERE t IS NOT NULL
RETURN axis, min(t) AS earliest, max(t) AS latest
ORDER BY axis
