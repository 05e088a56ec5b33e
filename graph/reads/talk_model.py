"""The read model of a channel's talk: per guild the fact model holds (graph/reads/fact_model.py), the channels a
reply was made in, each with its last `HELD_EPISODES` windows (their times, status, summary and messages) and the
messages not yet in a window, with their authors as a reply shows them; so that a reply's conversation
(context/conversation.cypher: the author, the last windows' summaries, the latest messages, the reply chain) and
its second round (context/second_round.cypher: the facts drawn from the recalled messages, the turns the best facts
were drawn from) are answered in memory; and so are the recalled searches (context/recalled.cypher,
context/recalled_before.cypher) and the matches' passages (context/passages.cypher) when it holds every message they
read: each window says how many messages it has (`HeldEpisode.whole`), and the channel from when on it holds all of
its messages (`HeldChannel.covered`, context/channel_coverage.cypher). A search reaching older messages is the
engine's.

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
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from graph.keys import channel_start, channel_time
from graph.models import utc
from graph.store import GraphStore

HELD_EPISODES = 20  # a channel's windows held: a reply reads 5 (ContextSettings.channel_episodes), its best facts' turns more

_NEVER = math.inf
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def millis(text: str) -> int:
    """The epoch milliseconds of an ISO time as a message's channel_time key holds them (graph/keys.py)."""
    parsed = datetime.fromisoformat(text)
    return ((parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)) - _EPOCH) // timedelta(milliseconds=1)


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
    millis: int  # the epoch milliseconds of its channel_time key (graph/keys.py), which the recalled search ranges over

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
    whole: bool = False  # every message IN_EPISODE of it is held (none of another guild's, none without an author)


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
    covered: float = _NEVER  # every message of the channel whose channel_time is at or after these millis is held

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
        millis=millis(str(row["created_at"])),
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
    windows_of: dict[str, int] = {}
    for ids in members.values():
        for i in ids:
            windows_of[i] = windows_of.get(i, 0) + 1
    for e in row["episodes"]:
        ids = sorted(members.get(e["uuid"], ()), key=lambda i: held.messages[i].key())
        held.episodes.append(
            HeldEpisode(
                e["uuid"], epoch(e["started_at"]), epoch(e["ended_at"]), e["ended_at"], e["status"], e["summary"], tuple(ids),
                whole=len(ids) == int(e["size"]) and all(windows_of[i] == 1 for i in ids),  # a message of two: not held so
            )
        )  # fmt: skip
    held.episodes.sort(key=lambda e: -e.ended)
    return held


async def load_channel(store: GraphStore, guild_id: str, channel_id: str) -> HeldChannel:
    """One channel's talk and the guild's change count (context/model_channel.cypher), and from when on the
    channel's messages are all held (context/channel_coverage.cypher, read at the same count or not at all)."""
    rows = await store.runner.read_plain(
        "context/model_channel", guild_id=guild_id, channel_id=channel_id, episodes=HELD_EPISODES, more=HELD_EPISODES + 1
    )
    held = held_channel(rows[0])
    mine = [m for m in held.messages.values() if m.channel_id == channel_id]
    oldest = min(mine, key=lambda m: m.millis, default=None)
    [found] = await store.runner.read_plain(
        "context/channel_coverage",
        guild_id=guild_id,
        start=channel_start(channel_id),
        end=channel_end(channel_id),
        oldest=channel_time(channel_id, datetime.fromisoformat(oldest.created_at)) if oldest else channel_start(channel_id),
        most=len(mine) + 1,
    )
    if held.count is not None and found["changes"] == held.count and found["since"] == len(mine):
        # nothing older, or every message from the oldest held on
        held.covered = -_NEVER if found["read"] == len(mine) or oldest is None else oldest.millis
    return held


def channel_end(channel_id: str) -> str:
    """Above every channel_time key of the channel ('}' follows the '|' of graph/keys.py)."""
    return f"{channel_id}}}"


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
                    old.reply_to_id, old.replies_to, edited, old.episode, old.millis,
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


def _word_patterns(words: Sequence[str]) -> list[re.Pattern[str]]:
    """context/recalled.cypher's Java regexes `(?isU).*\\b(?:word)\\b.*`, one a word (keywords: word characters)."""
    return [re.compile(r"\b(?:" + re.escape(w) + r")\b", re.IGNORECASE | re.DOTALL) for w in words]


def _any_pattern(words: Sequence[str]) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(re.escape(w) for w in words) + r")\b", re.IGNORECASE | re.DOTALL)


def scored(
    held: HeldChannel, span: Sequence[HeldMessage], words: Sequence[str], *, rarity: bool, passage: bool, recall: int, near: int
) -> list[dict[str, Any]]:
    """The recalled searches' scoring (context/recalled.cypher, context/recalled_before.cypher) over `span`, their
    messages newest first, as they do it: a match scores each word it holds (with `passage`, the words of the
    matches just before and after it in the span too) by its rarity among the matches, BM25's idf; the best
    `recall` by score, then their place in the span, each of the best `near` with the messages next to it (`near`:
    its match's id); rows as the statements return them."""
    patterns = _word_patterns(words)
    anyone = _any_pattern(words)  # context/recalled.cypher's $pattern: a message holding none of them is no match
    hits = [
        (i, [w for w, p in enumerate(patterns) if p.search(m.content)]) for i, m in enumerate(span) if anyone.search(m.content)
    ]
    counts = [sum(1 for _, hw in hits if w in hw) for w in range(len(words))]
    size = len(span)
    best: list[tuple[float, int]] = []
    for j, (i, here) in enumerate(hits):
        words_here = list(here)
        if passage and j > 0 and hits[j - 1][0] == i - 1:
            words_here += hits[j - 1][1]
        if passage and j < len(hits) - 1 and hits[j + 1][0] == i + 1:
            words_here += hits[j + 1][1]
        score = 0.0
        for w in range(len(words)):
            if w in words_here:
                score += math.log(1.0 + (size - counts[w] + 0.5) / (counts[w] + 0.5)) if rarity else 1.0
            else:
                score += 0.0
        best.append((score, i))
    best.sort(key=lambda si: (-si[0], si[1]))
    out = []
    for rank, (score, i) in enumerate(best[: max(recall, 0)]):
        rows: list[tuple[int, float | None, int | None]] = [(i, score, None)]
        if rank < near:
            rows += [(i - 1, None, i), (i + 1, None, i)]
        for at, row_score, beside in rows:
            if 0 <= at < size:
                m = span[at]
                out.append({**message_row(m, held.authors[m.author_id]), "score": row_score,
                            "near": None if beside is None else span[beside].id})  # fmt: skip
    return out


def recalled_span(held: HeldChannel, channel_id: str, start: datetime, end: datetime, window: int) -> list[HeldMessage] | None:
    """context/recalled.cypher's span from the held talk: the channel's last `window` messages whose channel_time
    is within `start`..`end`, newest first; None when the model does not hold every one of them (messages of one
    millisecond come in the engine's order there: here by id)."""
    first, last = _key_millis(start), _key_millis(end)
    if held.covered > last:
        return None
    inside = sorted(
        (m for m in held.messages.values() if m.channel_id == channel_id and first <= m.millis < last),
        key=lambda m: (m.millis, m.id),
        reverse=True,
    )[: max(window, 0)]
    if held.covered > first and not (len(inside) == window and inside and inside[-1].millis >= held.covered):
        return None
    return inside


def older_span(held: HeldChannel, channel_id: str, before: datetime, episodes: int) -> list[HeldMessage] | None:
    """context/recalled_before.cypher's span from the held talk: the messages of the channel's last `episodes`
    windows that ended before `before`, sent before it, newest first; None unless the model holds those windows
    and every message of them."""
    until = before.timestamp()
    ended = [e for e in held.episodes if e.ended < until]
    if len(ended) < episodes and not held.complete:
        return None
    chosen = ended[:episodes]
    if not all(e.whole for e in chosen):
        return None
    found = [held.messages[i] for e in chosen for i in e.messages]
    return sorted((m for m in found if m.channel_id == channel_id and m.created < until), key=HeldMessage.key, reverse=True)


def passages_held(
    held: HeldChannel, channel_id: str, ids: Sequence[str], *, at: datetime, reach: int
) -> list[dict[str, Any]] | None:
    """context/passages.cypher's `turns` from the held talk: for each match of `ids` (of the channel, before `at`),
    up to `reach` messages of its window each side; None when a match is not held, or its window not whole."""
    until = at.timestamp()
    windows = {e.uuid: e for e in held.episodes}
    rows: list[tuple[int, float, str, dict[str, Any]]] = []
    for rank, match_id in enumerate(ids):
        m = held.messages.get(match_id)
        if m is None:
            return None
        if m.channel_id != channel_id or m.created >= until or m.episode is None:
            continue  # no window yet: the statement finds no turn beside it either
        window = windows.get(m.episode)
        if window is None or not window.whole:
            return None
        inside = [held.messages[i] for i in window.messages]
        earlier = sorted((n for n in inside if n.created < m.created), key=HeldMessage.key, reverse=True)[:reach]
        later = sorted((n for n in inside if m.created < n.created < until), key=HeldMessage.key)[:reach]
        for side, turns in ((-1, earlier), (1, later)):
            for n in turns:
                if n.channel_id == channel_id:
                    rows.append(
                        (rank, n.created, n.id, {"near": m.id, "side": side, **message_row(n, held.authors[n.author_id])})
                    )
    rows.sort(key=lambda r: r[:3])
    return [row for *_, row in rows]


def _key_millis(at: datetime) -> int:
    """graph/keys.py's channel_time millis of `at`."""
    return (utc(at) - _EPOCH) // timedelta(milliseconds=1)
