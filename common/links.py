"""Discord message links (jump URLs): what a member clicks to open the message a memory came from.

A guild's message is `https://discord.com/channels/<guild>/<channel>/<message>`; a DM's is under `@me`. The DM
memory of a member has the guild id `dm:<user id>` (graph.models.dm_scope), so its links point to `@me`, which
only the two people of that conversation can open.
"""

from __future__ import annotations

import re

BASE = "https://discord.com/channels"
MAX_LINKS = 3  # the sources an answer ends with: enough to check it, not a list to read
_ID = r"[1-9][0-9]{14,20}"  # a Discord id never starts with 0
JUMP_URL = re.compile(rf"https://discord\.com/channels/(?:{_ID}|@me)/{_ID}/{_ID}")
_SNOWFLAKE = re.compile(_ID)


def jump_url(guild_id: str, channel_id: str | None, message_id: str | None) -> str | None:
    """The link to a message, or None when it has no Discord ids (an imported or hand-made record)."""
    if not channel_id or not message_id or not _SNOWFLAKE.fullmatch(channel_id) or not _SNOWFLAKE.fullmatch(message_id):
        return None
    where = "@me" if guild_id.startswith("dm:") else guild_id
    if where != "@me" and not _SNOWFLAKE.fullmatch(where):
        return None
    return f"{BASE}/{where}/{channel_id}/{message_id}"


def sources_line(urls: list[str]) -> str:
    """The line an answer ends with: small grey text in Discord (`-#`), each link once."""
    kept = list(dict.fromkeys(urls))
    return "-# Sources: " + " · ".join(kept) if kept else ""
