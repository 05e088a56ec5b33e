"""A quiet channel's older messages, recalled: the recalled search looks for messages matching a reply only
among the channel's last days (`graph.store.RECALL_SPAN`), so in a channel that talks a few times a month what
was said two months ago was never recalled, though it is what a long-term memory is for. A read beside it
(context/recalled_before.cypher, run by `GraphStore.conversation`) goes on from there through the channel's earlier
windows, a bounded number of them (as many as hold about `graph.store.RECALL_WINDOW` messages at the windows'
largest), whatever the channel's age.
"""

from __future__ import annotations

from common.settings import WindowSettings
from graph.store import RECALL_WINDOW

OLDER_EPISODES = RECALL_WINDOW // WindowSettings().max_messages  # windows searched before the span
