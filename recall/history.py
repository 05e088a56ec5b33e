"""A quiet channel's older messages, recalled: the conversation read looks for messages matching a reply only
among the channel's last days (`graph.store.RECALL_SPAN`), so in a channel that talks a few times a month what
was said two months ago was never recalled, though it is what a long-term memory is for. This read goes on
from there through the channel's earlier windows, a bounded number of them (as many as hold about
`graph.store.RECALL_WINDOW` messages at the windows' largest), whatever the channel's age.
"""

from __future__ import annotations

from common.settings import ContextSettings, WindowSettings
from graph.models import Recalled
from graph.store import RECALL_SPAN, RECALL_WINDOW, GraphStore
from recall.assemble import ContextRequest
from recall.ranking import search_prefixes

OLDER_EPISODES = RECALL_WINDOW // WindowSettings().max_messages  # windows searched before the span


async def older_recalled(store: GraphStore, req: ContextRequest, settings: ContextSettings) -> Recalled:
    """Messages of the channel's windows that ended before the recalled span, matching the reply, best first,
    with the messages next to them."""
    if not OLDER_EPISODES or settings.recalled_messages <= 0:
        return Recalled()
    return await store.recalled_before(
        req.guild_id,
        req.channel_id,
        before=req.at - RECALL_SPAN,
        text=req.message_text,
        episodes=OLDER_EPISODES,
        recall=settings.recalled_messages,
        prefixes=search_prefixes(req.message_text),
    )
