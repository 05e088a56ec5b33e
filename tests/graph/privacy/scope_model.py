"""A plain model of who may see what, built from Discord's events alone (never from the graph), for the scope
machine (tests/graph/privacy/test_scope_model.py): which channel each message was said in, which messages each fact was
told in and by whom, what @everyone may view of each channel, and the modes a moderator set.

The rule it holds the bot to (docs/privacy.md): a channel counts as shared only while its mode is 'shared' and
@everyone may view it (narrowing always wins: a channel Discord hides is private at once, whatever mode was set;
a public thread is hidden when its parent is); a fact may be shown in channel X only when it is of X's guild and
one of the channels it was told in (its sources' channels, while no member withdrew them: deleted, edited, or
the channel switched off; retention and forgets remove messages, not what was told) is shared, is X, or is X's
parent; a reporter only when one of their reports is so; a message likewise; nothing about, mentioning, reported
by or said by a forgotten member; no opted-out member among who-knows' people or a timeline's reporters."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

G1, G2 = "810000000000000001", "820000000000000002"
GENERAL, STAFF, STAFF_THREAD, RANDOM, RANDOM_THREAD, NEW_CHANNEL, NEW_THREAD, NEW_STAFF_THREAD = (
    f"81100000000000000{i}" for i in range(1, 9)
)
PUBLIC2, PRIVATE2 = "821000000000000001", "821000000000000002"
BOT = "870000000000000001"  # the bot's own id (tests/support/bot_events.py): never among who-knows' people


@dataclass
class Place:
    guild: str
    parent: str | None
    view: bool  # @everyone may view it (a thread: itself, not counting its parent)
    thread: bool
    exists: bool  # channels and threads created by a rule exist only from then on
    mode: str | None = None
    mode_set: bool = False
    deleted: bool = False  # deleted on Discord (a parent's threads with it): never there again
    stored_view: bool = False  # what the store last heard @everyone may view (a moderator's 'shared' needs it)


def places() -> dict[str, Place]:
    return {
        GENERAL: Place(G1, None, True, False, True),
        STAFF: Place(G1, None, False, False, True),
        STAFF_THREAD: Place(G1, STAFF, True, True, True),
        RANDOM: Place(G1, None, True, False, True),
        RANDOM_THREAD: Place(G1, RANDOM, True, True, True),
        NEW_CHANNEL: Place(G1, None, True, False, False),
        NEW_THREAD: Place(G1, GENERAL, True, True, False),
        NEW_STAFF_THREAD: Place(G1, STAFF, True, True, False),
        PUBLIC2: Place(G2, None, True, False, True),
        PRIVATE2: Place(G2, None, False, False, True),
    }


@dataclass
class Said:
    id: str
    guild: str
    channel: str
    author: str
    at: datetime
    text: str = ""
    withdrawn: bool = False  # deleted by its author, or its channel switched off: what it told is withdrawn
    gone: bool = False  # removed without withdrawing what it told (retention, a forget)
    episode: bool = False


@dataclass
class Told:
    uuid: str
    guild: str
    text: str
    about: set[str]
    mentions: set[str]
    evidence: dict[str, tuple[str, str]] = field(default_factory=dict)  # message id -> (its channel, its reporter)
    supersedes: set[str] = field(default_factory=set)  # the facts it closed
    migrated: bool = False  # its audience was rebuilt by the migration: what it allows is a bound, not exact


@dataclass
class Scope:
    channels: dict[str, Place] = field(default_factory=places)
    said: dict[str, Said] = field(default_factory=dict)
    told: dict[str, Told] = field(default_factory=dict)
    closed: set[str] = field(default_factory=set)
    opted_out: set[str] = field(default_factory=set)
    forgotten: set[str] = field(default_factory=set)

    # --- channel modes -----------------------------------------------------------------------
    def viewable(self, channel: str) -> bool:
        """Whether @everyone may view it now on Discord (a public thread: while they may view its parent)."""
        place = self.channels[channel]
        return place.view and (place.parent is None or self.channels[place.parent].view)

    def seen(self, channel: str) -> None:
        """The bot read what @everyone may view of `channel` (created, updated, refreshed at start)."""
        place = self.channels[channel]
        parent = self.channels[place.parent] if place.parent else None
        place.stored_view = self.viewable(channel)
        if place.mode is not None and not place.mode_set and parent is not None and parent.mode == "off":
            place.mode = "off"
        elif place.mode is None:
            if parent is not None and parent.mode == "off":
                place.mode = "off"
            elif not self.viewable(channel):
                place.mode = "private"
            else:
                place.mode = parent.mode if parent is not None and parent.mode else "shared"
        elif not self.viewable(channel):
            self.narrow(channel)

    def narrow(self, channel: str) -> None:
        """Hidden from @everyone: private at once (unless off), and so are its public threads."""
        for c, p in self.channels.items():
            if (c == channel or p.parent == channel) and p.mode is not None:
                p.stored_view = False
                p.mode = "off" if p.mode == "off" else "private"

    def set_mode(self, channel: str, mode: str) -> None:
        place = self.channels[channel]
        if mode == "shared" and not place.stored_view:
            return  # refused while Discord hides it: only a moderator widens, and only a channel @everyone may view
        place.mode, place.mode_set = mode, True
        for p in self.channels.values():
            if p.parent == channel and p.mode is not None and not p.mode_set and (mode != "shared" or p.stored_view):
                p.mode = mode

    def shared(self, channel: str) -> bool:
        place = self.channels[channel]
        if place.mode != "shared" or not self.viewable(channel):
            return False
        return place.parent is None or self.channels[place.parent].mode != "off"

    def off(self, channel: str) -> bool:
        place = self.channels.get(channel)
        return place is not None and place.mode == "off"

    def visible(self, channel: str, guild: str) -> set[str]:
        """The channels what is told may come from to be shown in `channel` ('': the shared ones alone)."""
        shared = {c for c, p in self.channels.items() if p.guild == guild and self.shared(c)}
        parent = self.channels[channel].parent if channel in self.channels else None
        if channel in self.channels:
            return shared | {channel} | ({parent} if parent else set())
        return shared | ({channel} if channel else set())

    # --- what may be shown ----------------------------------------------------------------------
    def may_show_fact(self, uuid: str, visible: set[str], guild: str) -> bool:
        told = self.told.get(uuid)
        if told is None or told.guild != guild or (told.about | told.mentions) & self.forgotten:
            return False
        return any(c in visible for c, _ in told.evidence.values())

    def may_show_reporter(self, uuid: str, user_id: str, visible: set[str]) -> bool:
        told = self.told[uuid]
        return user_id not in self.forgotten and any(c in visible and r == user_id for c, r in told.evidence.values())

    def may_show_message(self, message_id: str, visible: set[str], guild: str) -> bool:
        said = self.said.get(message_id)
        return (
            said is not None
            and not said.withdrawn
            and not said.gone
            and said.guild == guild
            and said.author not in self.forgotten
            and said.channel in visible
        )

    def facts_about(self, who: str, visible: set[str], guild: str) -> set[str]:
        """Every fact about `who` (open or closed) a read in a channel of `visible` must show: none of an opted-out or
        forgotten member; a fact whose audience the migration rebuilt is only bounded, never required."""
        if who in self.opted_out | self.forgotten:
            return set()
        return {u for u, t in self.told.items() if who in t.about and not t.migrated and self.may_show_fact(u, visible, guild)}

    def sides(self, uuid: str, visible: set[str], guild: str) -> tuple[set[str], set[str]]:
        """The facts on either side of its supersessions a read must show with it: (what it closed, what closed it)."""
        told = self.told[uuid]

        def must(u: str) -> bool:
            return u in self.told and not self.told[u].migrated and self.may_show_fact(u, visible, guild)

        older = {u for u in told.supersedes if must(u)}
        return older, {u for u, t in self.told.items() if uuid in t.supersedes and must(u)}

    def reports_shown(self, visible: set[str], guild: str) -> set[tuple[str, str]]:
        """(fact, reporter) pairs who-knows must list: a report told in a channel of `visible` whose message is still
        stored (or a command's, with none), by a member neither forgotten nor the bot, of a fact it may show."""
        pairs = set()
        for u, t in self.told.items():
            if t.migrated or not self.may_show_fact(u, visible, guild):
                continue
            for message, (channel, reporter) in t.evidence.items():
                said = self.said.get(message)
                stored = message.startswith("command:") or (said is not None and not said.gone and not said.withdrawn)
                if channel in visible and stored and reporter not in self.forgotten and reporter != BOT:
                    pairs.add((u, reporter))
        return pairs

    def erase_places(self, gone: set[str]) -> None:
        """A channel and its threads switched off or deleted: their messages withdrawn, and what was told there
        (sourced or not) leaves every fact."""
        self.withdraw({i for i, m in self.said.items() if m.channel in gone})
        for told in self.told.values():
            told.evidence = {k: e for k, e in told.evidence.items() if e[0] not in gone}

    def withdraw(self, ids: set[str]) -> None:
        for i in ids:
            if i in self.said:
                self.said[i].withdrawn = True
        for told in self.told.values():
            told.evidence = {m: e for m, e in told.evidence.items() if m not in ids}
