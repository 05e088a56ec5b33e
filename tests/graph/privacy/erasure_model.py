"""A plain Python model of what the graph should hold after each member request, for the stateful erasure test
(tests/graph/privacy/test_erasure_model.py): messages with their text and reply pointers, facts, accounts and
memberships, the names each member carried; and what a forget, a moderator's forget, retention, a delete, an
edit and a channel switched off should leave. It uses the project's text rules (common/names.py, common/text.py)
for what a name is, never the graph code under test."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from common.names import fold, identifying
from common.text import MENTION, names_word, redact

HIDDEN = "@someone"  # an opted-out member's mention, as the store keeps it


def same_words(text: str) -> str:
    """What makes two texts one fact's (docs/privacy.md: the same words, whatever their case, accents or Unicode
    form): compatibility-decomposed without accents, case folded, apostrophes dropped, the words joined by one
    space, no leading article. The model's own reading, so that a fact said again in another form is not a twin."""
    text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    text = text.casefold().replace("'", "").replace("\u2019", "")
    return re.sub(r"^(?:the|a|an) ", "", " ".join(re.sub(r"[\W_]+", " ", text).split()))


@dataclass
class Member:
    id: str
    account: str
    nick: dict[str, str] = field(default_factory=dict)  # guild -> current nickname
    account_names: set[str] = field(default_factory=set)  # every account name carried (and the first display name)
    nick_names: dict[str, set[str]] = field(default_factory=dict)  # guild -> every nickname carried there
    opted_out: bool = False
    forgotten: bool = False
    stored: bool = False  # whether an account node should exist


@dataclass
class Msg:
    id: str
    guild: str
    channel: str
    author: str
    content: str
    at: datetime
    reply_to: str | None
    episode: bool = False


@dataclass
class Fact:
    uuid: str
    guild: str
    text: str
    about: set[str]
    mentions: set[str]
    reports: set[tuple[str, str]]  # (user id, message id)
    sources: set[str]
    owner: str | None = None  # the member an entity it is about belongs to
    told_in: set[str] = field(default_factory=set)  # the channels of its sources when written
    withdrawn: bool = False  # one of its sources was deleted or edited (its audience narrowed since)


@dataclass
class Model:
    members: dict[str, Member]
    channels: dict[str, tuple[str, str | None]]  # channel -> (guild, parent)
    messages: dict[str, Msg] = field(default_factory=dict)
    facts: dict[str, Fact] = field(default_factory=dict)
    memberships: set[tuple[str, str]] = field(default_factory=set)  # (user id, guild id)
    owners: dict[str, set[str]] = field(default_factory=dict)  # entity uuid -> members it is linked to
    public: set[str] = field(default_factory=set)  # the channels @everyone may view

    # --- who is who ---------------------------------------------------------------------
    def display(self, user_id: str, guild: str) -> str:
        m = self.members[user_id]
        return m.nick.get(guild, m.account)

    def carried(self, user_id: str, guild: str) -> set[str]:
        m = self.members[user_id]
        return m.account_names | m.nick_names.get(guild, set())

    def scope_guilds(self, user_id: str) -> set[str]:
        guilds = {g for u, g in self.memberships if u == user_id}
        guilds |= {m.guild for m in self.messages.values() if m.author == user_id}
        guilds |= {f.guild for f in self.facts.values() if user_id in f.about | f.mentions | {u for u, _ in f.reports}}
        return {g for g in guilds if not g.startswith("dm:")}

    def names_in(self, user_id: str, guild: str) -> list[str]:
        """The names identifying the member in that guild: carried by them, by no other member there, no word of any
        supported language."""
        taken = {fold(n) for u, g in self.memberships if g == guild and u != user_id for n in self.carried(u, guild)}
        m = self.members[user_id]
        every = m.account_names | {n for names in m.nick_names.values() for n in names}
        return sorted(n for n in every if identifying(n) and fold(n) not in taken)

    def scope(self, user_id: str, guild: str | None = None) -> dict[str, list[str]]:
        theirs = self.scope_guilds(user_id)
        guilds = [guild] if guild is not None else sorted(theirs)
        return {g: self.names_in(user_id, g) if g in theirs else [] for g in guilds}  # never theirs: their id only

    # --- writes ---------------------------------------------------------------------------
    def upsert(self, user_id: str, guild: str) -> None:
        m = self.members[user_id]
        if m.opted_out:
            return
        if not m.stored:
            m.account_names.add(m.account)  # the display name on creation is the account name
        m.stored = True
        m.account_names.add(m.account)
        m.nick_names.setdefault(guild, set()).add(m.nick.get(guild, m.account))
        self.memberships.add((user_id, guild))

    def masked(self, content: str) -> str:
        return MENTION.sub(
            lambda x: HIDDEN if self.members.get(x.group(1), None) and self.members[x.group(1)].opted_out else x.group(0), content
        )

    def record(self, msg: Msg) -> bool:
        author = self.members.get(msg.author)  # none: the bot's own answer
        if (author is not None and author.opted_out) or msg.id in self.messages:
            return False
        msg.content = self.masked(msg.content)
        if msg.reply_to is not None and msg.reply_to not in self.messages:
            pass  # a reply whose parent is not stored keeps its pointer (as Discord gives it)
        self.messages[msg.id] = msg
        return True

    # --- what goes ------------------------------------------------------------------------
    def _unlink(self, gone: set[str]) -> None:
        for m in self.messages.values():
            if m.reply_to in gone:
                m.reply_to = None

    def _erase_content(self, ids: set[str], *, drop_reports: bool = True) -> None:
        """Facts drawn only from these messages go; reports keyed by them go from the others."""
        for uuid, f in list(self.facts.items()):
            if f.sources and f.sources <= ids:
                del self.facts[uuid]
            elif drop_reports:
                f.reports = {(u, mid) for u, mid in f.reports if mid not in ids}
            if f.sources & ids:
                f.withdrawn = True

    def delete_messages(self, ids: set[str]) -> None:
        ids &= set(self.messages)
        self._erase_content(ids)
        for i in ids:
            del self.messages[i]
        for f in self.facts.values():
            f.sources -= ids
        self._unlink(ids)

    def edit(self, message_id: str, content: str) -> bool:
        """An edit: the facts of the old text go; an opted-out member's message (or one in their DM space) goes
        as if deleted, its new text never stored; an opted-out member's mention in the new text is masked."""
        msg = self.messages[message_id]
        owner = msg.guild[3:] if msg.guild.startswith("dm:") else msg.author
        if any(self.members[i].opted_out for i in (msg.author, owner) if i in self.members):
            self.delete_messages({message_id})
            return True
        content = self.masked(content)
        if msg.content == content:
            return False
        self._erase_content({message_id})
        msg.content = content
        return True

    def channel_off(self, guild: str, channel: str) -> None:
        channels = {c for c, (g, parent) in self.channels.items() if g == guild and (c == channel or parent == channel)}
        self.delete_messages({m.id for m in self.messages.values() if m.channel in channels})
        for uuid, f in list(self.facts.items()):  # told only there, sourced or not (retention unlinks, keeps them)
            if f.told_in and f.told_in <= channels:
                del self.facts[uuid]

    def retention(self, cutoff: datetime) -> None:
        old = {m.id for m in self.messages.values() if m.at < cutoff}
        for i in old:
            del self.messages[i]
        for f in self.facts.values():
            f.sources -= old  # the facts stay, without that provenance
        self._unlink(old)

    def forget(self, user_id: str, guild: str | None = None) -> None:
        """A forget everywhere (`guild` None, their DM space too) or in one guild (a moderator's)."""
        scope = self.scope(user_id, guild)
        member = self.members[user_id]

        def here(g: str) -> bool:
            return guild is None or g == guild

        mine = {m.id for m in self.messages.values() if m.author == user_id and here(m.guild)}
        if guild is None:
            mine |= {m.id for m in self.messages.values() if m.guild == f"dm:{user_id}"}
        for uuid, f in list(self.facts.items()):
            if not here(f.guild):
                continue
            reporters = {u for u, _ in f.reports}
            owned = f.owner is not None and self.owners.get(uuid, set()) == {user_id}
            in_text = user_id in f.text or names_word(f.text, scope.get(f.guild, []))
            if user_id in f.about | f.mentions or reporters == {user_id} or owned or in_text or f.guild == f"dm:{user_id}":
                del self.facts[uuid]
            else:
                f.reports = {(u, mid) for u, mid in f.reports if u != user_id}
                f.about.discard(user_id)
                f.mentions.discard(user_id)
        for i in mine:
            del self.messages[i]
        for f in self.facts.values():
            f.sources -= mine
        self._unlink(mine)
        for m in self.messages.values():
            if here(m.guild):
                m.content = redact(m.content, [user_id, *scope.get(m.guild, [])])
        if guild is None:
            self.memberships = {(u, g) for u, g in self.memberships if u != user_id}
            member.stored, member.opted_out, member.forgotten = False, True, True
        else:
            self.memberships.discard((user_id, guild))
            member.nick_names.pop(guild, None)
            member.stored = self.has_trace(user_id)

    def export_candidates(self, user_id: str) -> tuple[set[str], set[str]]:
        """The facts an export accounts for (shown or counted as withheld): about, mentioning, reported by them or
        about what is theirs, anywhere; naming them where a name identifies them. And of those, the ones it must
        show: reported by them, or told (never narrowed since) in a channel of a guild of theirs they could read."""
        scope = self.scope(user_id)
        guilds = {g for u, g in self.memberships if u == user_id} | {f"dm:{user_id}"}
        wrote = {m.channel for m in self.messages.values() if m.author == user_id}
        candidates, shown = set(), set()
        for uuid, f in self.facts.items():
            reporters = {u for u, _ in f.reports}
            linked = user_id in f.about | f.mentions | reporters or user_id in self.owners.get(uuid, set())
            if not linked and not (f.guild in scope and names_word(f.text, scope[f.guild])):
                continue
            candidates.add(uuid)
            readable = any(c in self.public or c in wrote or self.channels[c][1] in wrote for c in f.told_in)
            if user_id in reporters or (f.guild in guilds and not f.withdrawn and readable):
                shown.add(uuid)
        return candidates, shown

    def has_trace(self, user_id: str) -> bool:
        """An account stays while the member has anything elsewhere: a membership, a message, a fact."""
        return (
            any(u == user_id for u, _ in self.memberships)
            or any(m.author == user_id for m in self.messages.values())
            or any(user_id in f.about | f.mentions | {u for u, _ in f.reports} for f in self.facts.values())
        )

    def cutoff(self, now: datetime, days: int) -> datetime:
        return now - timedelta(days=days)
