"""The read model of a channel's talk: per guild the fact model holds (graph/reads/fact_model.py), the channels a
reply was made in, each with its last `HELD_EPISODES` windows (their times, status, summary and messages) and the
messages not yet in a window, with their authors as a reply shows them; so that a reply's conversation
(context/conversation.cypher: the author, the last windows' summaries, the latest messages, the reply chain) and
its second round (context/second_round.cypher: the facts drawn from the recalled messages, the turns the best facts
were drawn from) are answered in memory, the engine asked only for the searches over older messages
(context/recalled.cypher, context/recalled_before.cypher).

Each answer is the statement's, or none: a request the model cannot answer exactly (a reply before the windows it
holds, a chain reaching a message it does not hold, a fact's turn in an older window) goes to the statement. It is
held at the guild's change count, as the facts are: read in the same transaction as the count, kept only while the
guild's part of the model is the one read at that count. This process's recorded messages are added in place as
they commit (graph/changes.py: a write of messages says which); any other write of the guild (a window closed, an
extraction, an edit or delete, a forget, an opt-out, a mode change, retention) drops every channel's talk at once,
read again by the next reply in the channel.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from graph.store import GraphStore

HELD_EPISODES = 20  # a channel's windows held: a reply reads 5 (ContextSettings.channel_episodes), its best facts' turns more

_NEVER = math.inf


def epoch(text: str | None) -> float:
    """Epoch seconds of an ISO time (inf when there is none: a DESC order puts it first, as Cypher puts nulls)."""
    if text is None:
        return _NEVER
    parsed = datetime.fromisoformat(text)
    return (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).timestamp()


@dataclass(frozen=True, slots=True)
class HeldMessage:
    id: str
    channel_id: str
    author_id: str
    content: str
    created: float  # epoch seconds
    created_at: str
    reply_to_id: str | None
    replies_to: str | None  # the message its REPLIES_TO link reaches
    edited: float | None
    episode: str | None  # the held window it is in (None: not yet in one)

    def key(self) -> tuple[float, str]:
        return (self.created, self.id)


@dataclass(frozen=True, slots=True)
class HeldEpisode:
    uuid: str
    started: float
    ended: float
    ended_at: str | None
    status: str | None
    summary: str | None
    messages: tuple[str, ...]  # ids, oldest first


Author = tuple[str | None, str | None, bool | None]  # (name, display name in the guild, is a bot)


@dataclass(slots=True)
class HeldChannel:
    """One channel's talk: its last windows by end, newest first, and the messages of those and of no window yet."""

    count: int | None
    episodes: list[HeldEpisode] = field(default_factory=list)
    complete: bool = True  # every window of the channel is held
    messages: dict[str, HeldMessage] = field(default_factory=dict)
    buffered: set[str] = field(default_factory=set)
    authors: dict[str, Author] = field(default_factory=dict)

    def strings(self) -> Iterable[str]:
        for e in self.episodes:
            yield from (s for s in (e.uuid, e.ended_at, e.status, e.summary) if s)
            yield from e.messages
        for m in self.messages.values():
            yield from (s for s in (m.id, m.channel_id, m.author_id, m.content, m.created_at, m.reply_to_id, m.replies_to) if s)
        for user_id, (name, display, _) in self.authors.items():
            yield from (s for s in (user_id, name, display) if s)


def _held_message(row: Mapping[str, Any], episode: str | None) -> HeldMessage:
    return HeldMessage(
        id=str(row["id"]),
        channel_id=str(row["channel_id"]),
        author_id=str(row["author_id"]),
        content=row["content"] or "",
        created=epoch(row["created_at"]),
        created_at=str(row["created_at"]),
        reply_to_id=row["reply_to_id"],
        replies_to=row.get("replies_to", row["reply_to_id"]),
        edited=None if row.get("edited_at") is None else epoch(row["edited_at"]),
        episode=episode,
    )


def held_channel(row: Mapping[str, Any]) -> HeldChannel:
    """A row of context/model_channel.cypher."""
    count = row["changes"]
    held = HeldChannel(count=None if count is None else int(count), complete=not row["more"])
    members: dict[str, list[str]] = {}
    for m in row["messages"]:
        message = _held_message(m, m["episode"])
        if m["episode"] is None:
            held.buffered.add(message.id)
        else:
            members.setdefault(m["episode"], []).append(message.id)
        if message.id not in held.messages or m["episode"] is not None:
            held.messages[message.id] = message
        held.authors[message.author_id] = (m["author_name"], m["author_display_name"], m["author_is_bot"])
    for e in row["episodes"]:
        ids = sorted(members.get(e["uuid"], ()), key=lambda i: held.messages[i].key())
        held.episodes.append(
            HeldEpisode(
                e["uuid"], epoch(e["started_at"]), epoch(e["ended_at"]), e["ended_at"], e["status"], e["summary"], tuple(ids)
            )
        )
    held.episodes.sort(key=lambda e: -e.ended)
    return held


async def load_channel(store: GraphStore, guild_id: str, channel_id: str) -> HeldChannel:
    """One channel's talk and the guild's change count, in one statement (context/model_channel.cypher)."""
    rows = await store.runner.read_plain(
        "context/model_channel", guild_id=guild_id, channel_id=channel_id, episodes=HELD_EPISODES, more=HELD_EPISODES + 1
    )
    return held_channel(rows[0])


def apply(talk: dict[str, HeldChannel], messages: Sequence[Mapping[str, Any]] | None) -> None:
    """This process's write of messages, in place: new ones join their channel's (not yet in a window), edits
    change the text (a later edit only, as store/edit_messages.cypher); None drops every channel's talk."""
    if messages is None:
        talk.clear()
        return
    for row in messages:
        channel_id = str(row["channel_id"])
        held = talk.get(channel_id)
        if held is None:
            continue
        message_id = str(row["id"])
        if row.get("edit"):
            old = held.messages.get(message_id)
            edited = epoch(row["edited_at"])
            if old is not None and (old.edited is None or edited > old.edited):
                held.messages[message_id] = HeldMessage(
                    old.id, old.channel_id, old.author_id, row["content"] or "", old.created, old.created_at,
                    old.reply_to_id, old.replies_to, edited, old.episode,
                )  # fmt: skip
            continue
        author = next((h.authors[row["author_id"]] for h in talk.values() if row["author_id"] in h.authors), None)
        if author is None or message_id in held.messages:  # an author it holds no name of: read the channel again
            talk.pop(channel_id, None)
            continue
        held.authors[str(row["author_id"])] = author
        held.messages[message_id] = _held_message(row, None)
        held.buffered.add(message_id)


def _author_of(talk: Mapping[str, HeldChannel], user_id: str) -> Author | None:
    return next((h.authors[user_id] for h in talk.values() if user_id in h.authors), None)


def message_row(m: HeldMessage, author: Author) -> dict[str, Any]:
    """A held message as context/conversation.cypher returns one (read by graph.rows.message_view)."""
    name, display, is_bot = author
    return {"id": m.id, "channel_id": m.channel_id, "author_id": m.author_id, "content": m.content,
            "created_at": m.created_at, "reply_to_id": m.reply_to_id, "author_name": name,
            "author_display_name": display, "author_is_bot": is_bot}  # fmt: skip


def visible_channels(channels: Mapping[str, tuple[str | None, str | None]], channel_id: str) -> set[str]:
    """The channels whose messages may be shown in `channel_id` (graph/privacy/channels.py): the guild's shared
    ones, the channel itself and its parent."""
    visible = {c for c, (mode, _) in channels.items() if mode == "shared"}
    parent = channels.get(channel_id, (None, None))[1]
    return visible | {c for c in (channel_id, parent) if c is not None}


def conversation_held(
    talk: Mapping[str, HeldChannel],
    channels: Mapping[str, tuple[str | None, str | None]],
    channel_id: str,
    *,
    author_id: str,
    at: datetime,
    reply_to_id: str | None,
    skip_id: str | None,
    episodes: int,
    messages: int,
    chain: int,
) -> dict[str, Any] | None:
    """context/conversation.cypher's row answered from `talk` (the guild's held channels; `channels`: their modes and
    parents), or None when the model cannot answer it exactly."""
    held = talk.get(channel_id)
    if held is None or episodes > HELD_EPISODES:
        return None
    until = at.timestamp()
    before = [e for e in held.episodes if e.started < until]
    if len(before) < episodes and not held.complete:
        return None  # the windows before `at` may go on past those held
    chosen = before[:episodes]
    author = _author_of(talk, author_id)
    if author is None:
        return None  # whether the author is stored at all is the statement's to say
    ids = {i for e in chosen for i in e.messages} | held.buffered
    recent = sorted(
        (held.messages[i] for i in ids if held.messages[i].created < until and held.messages[i].id != skip_id),
        key=HeldMessage.key,
        reverse=True,
    )[:messages]
    found = _chain(talk, reply_to_id) if reply_to_id is not None else []
    if found is None:
        return None
    visible = visible_channels(channels, channel_id)
    shown = sorted((m for m in found if m.channel_id in visible), key=lambda m: m.created, reverse=True)[:chain]
    name, display, is_bot = author
    return {
        "author": {"id": author_id, "name": name, "is_bot": is_bot, "display_name": display},
        "summaries": [
            {"ended_at": e.ended_at, "summary": e.summary} for e in chosen if e.status == "done" and e.summary and e.ended < until
        ],  # fmt: skip
        "recent": [message_row(m, held.authors[m.author_id]) for m in recent],
        "chain": [message_row(m, _author_of(talk, m.author_id) or (None, None, None)) for m in shown],
    }


def _find(talk: Mapping[str, HeldChannel], message_id: str) -> HeldMessage | None:
    return next((h.messages[message_id] for h in talk.values() if message_id in h.messages), None)


def _chain(talk: Mapping[str, HeldChannel], reply_to_id: str) -> list[HeldMessage] | None:
    """The message `reply_to_id` and the 40 it replies to in turn (REPLIES_TO*0..40), or None when one is not held."""
    found: dict[str, HeldMessage] = {}
    at: str | None = reply_to_id
    for _ in range(41):
        if at is None or at in found:
            break
        message = _find(talk, at)
        if message is None:
            return None
        found[at] = message
        at = message.replies_to
    return list(found.values())


def evidence_held(
    held: HeldChannel, sources: Sequence[tuple[int, Sequence[str]]], *, at: datetime, span: int
) -> list[dict[str, Any]] | None:
    """context/second_round.cypher's `evidence` answered from the channel's talk: for each (rank, ids of a fact's
    source messages in the channel), the sources before `at` and their `span` neighbours each side in their window;
    None when a source is not held (a window older than those held)."""
    until = at.timestamp()
    windows = {e.uuid: e for e in held.episodes}
    rows: list[tuple[int, float, str, bool, HeldMessage]] = []
    for rank, ids in sources:
        for message_id in ids:
            m = held.messages.get(message_id)
            if m is None:
                return None
            if m.created >= until:
                continue
            rows.append((rank, m.created, m.id, True, m))
            window = windows.get(m.episode) if m.episode is not None else None
            if window is None:
                continue
            inside = [held.messages[i] for i in window.messages]
            earlier = sorted((n for n in inside if n.created < m.created), key=HeldMessage.key, reverse=True)[:span]
            later = sorted((n for n in inside if m.created < n.created < until), key=HeldMessage.key)[:span]
            rows.extend((rank, n.created, n.id, False, n) for n in [*earlier, *later])
    rows.sort(key=lambda r: r[:3])
    return [{"rank": rank, "is_source": source, **message_row(m, held.authors[m.author_id])} for rank, _, _, source, m in rows]


def strings(talk: Mapping[str, HeldChannel]) -> Iterable[str]:
    for channel_id, held in talk.items():
        yield channel_id
        yield from held.strings()
