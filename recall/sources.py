"""The sources an answer ends with: the memories it drew on, as the messages a member can open.

`citable` lists, once the context is assembled, what it kept that has a message to link to: its facts (a
source message the asking channel may show, `FactView.shown`, read with the facts: no further read) and its
recalled messages, best first. `cited` picks, once the answer is written, those whose words the answer uses:
a fact or message shares at least two content words with it (one, when it holds only one), the asker's own name
not counted (an answer often greets them). So "hi Alice" cites nothing, and an answer that says where Alice
moved cites the fact it took that from.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from common.links import MAX_LINKS
from common.text import keywords
from graph.models import FactView
from recall.assemble import Gathered, ReplyContext

Citable = tuple[str, str, str]  # (text, channel id, message id)
WORDS = 200  # content words of a text compared: more than any fact or quoted message holds


def citable(gathered: Gathered, context: ReplyContext) -> list[Citable]:
    """What the context kept that a member could open: each kept fact with its first source the channel may show,
    then each kept recalled message (a member's, not a bot's), in the context's order (most relevant first)."""
    kept = [uuid for part in context.parts if part.name in ("related", "author") for uuid in part.ids]
    if not kept and not context.message_ids:
        return []
    facts: dict[str, FactView] = {}
    for fact in [*gathered.author_facts, *(f for source in gathered.related for f in source)]:
        if fact.shown:
            facts.setdefault(fact.uuid, fact)
    out: list[Citable] = []
    for uuid in kept:
        if uuid in facts:
            message_id, channel_id = facts[uuid].shown[0]
            out.append((facts[uuid].text, channel_id, message_id))
    recalled = {m.id: m for m in gathered.recalled}
    for part in context.parts:
        if part.name == "recalled":
            out += [
                (recalled[i].content, recalled[i].channel_id, i)
                for i in part.ids
                if i in recalled and not recalled[i].author_is_bot
            ]
    return out


def cited(
    candidates: Iterable[Citable],
    answer: str,
    asker_name: str = "",
    *,
    can_open: Callable[[str], bool] = lambda _: True,
    limit: int = MAX_LINKS,
) -> list[tuple[str, str]]:
    """(channel id, message id) of the candidates the answer draws on, at most `limit`, most words shared first
    (then in the context's order), each message once, only in channels `can_open` allows."""
    mine = set(keywords(asker_name, WORDS))
    said = set(keywords(answer, WORDS)) - mine
    if not said:
        return []
    scored: list[tuple[int, int, str, str]] = []
    seen: set[str] = set()
    for rank, (text, channel_id, message_id) in enumerate(candidates):
        if message_id in seen:
            continue
        words = set(keywords(text, WORDS)) - mine
        shared = len(words & said)
        if shared and shared >= min(2, len(words)) and can_open(channel_id):
            seen.add(message_id)
            scored.append((-shared, rank, channel_id, message_id))
    return [(channel_id, message_id) for _, _, channel_id, message_id in sorted(scored)[:limit]]
