"""Where a fact may be recalled, stored as data: each Fact holds its `audience`, the ids of the channels it was
told in (the channels of the messages it came from; a command's channel; the episode's channel when no message
is stored). It is written with the fact (queries/store/write_episode_facts.cypher, write_command_facts.cypher),
widened only by the channel of a new source when the fact is told again (a corroboration, or another episode's
restatement: queries/store/write_reports.cypher), narrowed when a member deletes or edits a source (a channel
leaves it once no stored source of the fact is there, queries/erasure/narrow_audience.cypher), kept as it was when retention removes the messages, and computed once
for facts written before it existed (queries/schema/backfill_fact_audience.cypher). A fact whose channel nothing
records has an empty audience: no member sees it, operators still do.

Every read that shows a member something filters the same way, in its own statement: with the channel it is
read for (`$channel_id`; null for operators, '' for what the shared channels alone hold),

    OPTIONAL MATCH (here:Channel {id: coalesce($channel_id, '')})
    WITH COLLECT { MATCH (c:Channel) WHERE c.guild_id = $guild_id AND c.mode = 'shared' RETURN c.id }
         + [$channel_id, here.parent_id] AS visible

and keeps a fact only when `$channel_id IS NULL OR any(a IN f.audience WHERE a IN visible)`: a property of the
fact, never a walk to its source messages (which retention, deletes and forgets remove). The channels' memory
modes are read when the fact is, so narrowing a channel (shared to private or off) narrows at once, and
widening happens only when the mode is widened (graph/privacy/channels.py: by a moderator; a channel @everyone may now
view keeps the mode it had). tests/test_scope_convention.py holds every scoped statement to this form.
"""

from __future__ import annotations

from common.events import emit
from graph.session import Runner

VISIBLE = (
    "COLLECT { MATCH (c:Channel) WHERE c.guild_id = $guild_id AND c.mode = 'shared' RETURN c.id } "
    "+ [$channel_id, here.parent_id] AS visible"
)
FILTER = "any(a IN f.audience WHERE a IN visible)"
BACKFILL_BATCH = 5_000


async def backfill_audience(runner: Runner, batch: int = BACKFILL_BATCH) -> int:
    """Store the audience of the facts written before it was stored, `batch` facts per transaction, reporting
    progress; returns how many got one (0 once every fact has it)."""
    total = 0
    while True:
        found = await runner.write_one("schema/backfill_fact_audience", batch=batch)
        updated = int(found[0]["updated"]) if found else 0
        if not updated:
            break
        total += updated
        emit("graph", "audience_backfill", facts=total)
    if total:
        emit("graph", "audience_backfill_done", facts=total)
    return total
