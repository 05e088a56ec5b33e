"""An edited message of an episode already extracted, extracted again from its new text.

The edit itself removed what was drawn only from the old text and left the message waiting (graph/writes/reextract.py,
durable: the backlog finds it after a restart). Here the waiting messages of one episode are sent as one call:
a window of only those messages, with the episode's other messages as earlier messages (context the answer
cannot cite, so no other message's facts come twice). The facts are resolved as for any window and written
into the same episode, FROM the edited messages. A channel whose memory is `off` extracts nothing; opted-out
members are held out as in any extraction (their messages, their mentions, and the write's own check).
"""

from __future__ import annotations

from collections.abc import Callable

from common.clock import now_utc
from common.events import emit
from graph.reads.backlog import episode_by_key, episode_messages
from graph.writes import reextract
from ingest.embeddings import embed_facts
from ingest.extraction.on_error import NoAnswer, OnError, answer_of
from ingest.extraction.resolution import keyed_uuids, resolve
from ingest.extraction.window import WindowSteps, ask, without_hidden
from ingest.guild_turns import GuildTurns
from ingest.windows import ClosedWindow, WindowMessage
from llm.client import StructuredLLM


async def reextract_edited(
    steps: WindowSteps, llm: StructuredLLM, turns: GuildTurns, holds: Callable[[str], bool], guild_id: str | None = None
) -> int:
    """Every episode whose edited messages wait (of the guilds this process `holds`), one call each; returns how
    many were written."""
    written = 0
    for key, guild in await reextract.waiting_episodes(steps.store, guild_id):
        if not holds(guild):
            continue
        if llm.parked:
            break
        async with turns.turn(guild):  # after forget-me, never beside another extraction of the guild
            written += await _episode(steps, llm, key)
    return written


async def _episode(steps: WindowSteps, llm: StructuredLLM, key: str) -> int:
    store = steps.store
    waiting, mode = await reextract.changes(store, key)  # read again under the guild's turn: done once only
    episode = await episode_by_key(store, key)
    if not waiting or episode is None:
        return 0
    ids = {c.id for c in waiting}
    hidden = steps.hidden or (lambda _: False)
    stored = [(without_hidden(m, steps.hidden), u) for m, u in await episode_messages(store, key) if not hidden(u.id)]
    changed = tuple(WindowMessage(m, u) for m, u in stored if m.id in ids)
    if mode == "off" or not changed:
        await reextract.clear(store, key, waiting)
        emit("ingest", "reextraction_skipped", key=key, guild_id=episode.guild_id, reason=f"mode {mode}" if changed else "empty")
        return 0
    others = tuple(WindowMessage(m, u) for m, u in stored if m.id not in ids)
    window = ClosedWindow(episode.channel_id, episode.guild_id, changed, others, reason="edited")
    inp = await steps.prompt_input(window)
    answered = await answer_of(ask(llm, inp, key, episode.guild_id))
    if isinstance(answered, NoAnswer):
        if answered.then is OnError.PARK:
            steps.outage.append(key)
            return 0  # the messages wait for the next pass
        await reextract.clear(store, key, waiting)  # the old text is gone already; the new one is not learned
        emit("ingest", "reextraction_failed", key=key, guild_id=episode.guild_id, error=answered.name)
        return 0
    answer, refs, inp = answered
    stamp = ",".join(f"{c.id}@{c.edit}" for c in waiting)
    resolution = resolve(answer, refs, inp, episode_key=key, now=now_utc(), new_uuid=keyed_uuids(f"{key}#edit:{stamp}"))
    write = resolution.write
    write = await embed_facts(steps.embed, write)
    outcome = await reextract.write(store, write, waiting)
    emit(
        "ingest",
        "reextraction_done",
        key=key,
        guild_id=episode.guild_id,
        messages=len(changed),
        facts=outcome.facts,
        superseded=outcome.superseded,
        written=outcome.written,
        dropped=resolution.dropped[:20],
    )
    return 1 if outcome.written else 0
