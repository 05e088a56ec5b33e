// The span of the time control for one guild, per axis: valid time runs over its facts' valid_at,
// invalid_at and expires_at and its episodes' start and end (when things were said and held);
// record time over its facts' created_at and expired_at (when grapevine wrote and closed them).
// Facts, then episodes, each read through its guild_id index (collect leaves out missing times); a CALL
// subquery would be planned without indexes by ArcadeDB, reading every guild's facts.
OPTIONAL MATCH (f:Fact {guild_id: $guild_id})
WITH collect(f.valid_at) + collect(f.invalid_at) + collect(f.expires_at) AS valid,
     collect(f.created_at) + collect(f.expired_at) AS recorded
OPTIONAL MATCH (ep:Episode {guild_id: $guild_id})
WITH valid, recorded, collect(ep.started_at) + collect(ep.ended_at) AS held
WITH valid + held AS valid, recorded
UNWIND [['valid', valid], ['recorded', recorded]] AS times
UNWIND times[1] AS t
RETURN times[0] AS axis, min(t) AS earliest, max(t) AS latest
ORDER BY axis
