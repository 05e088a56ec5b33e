"""Each guild's change count: every write transaction of the runner (graph/session.py) ends by adding one to the
count of the guilds it wrote (`Guild.changes`), in the same transaction, so a process that keeps what a reply reads
in memory (graph/reads/fact_model.py) can tell that another process wrote (the CLI's forget, retention, an import,
another shard) before it answers from what it holds.

A unit of work names the guilds it writes with `touches`; one that names none counts for every guild (a forget
across guilds, retention, a schema backfill): a writer that forgets to say costs a reload, never a stale answer.
`facts=False` says the write changes nothing the fact model holds (messages recorded, no member renamed), so this
process's model follows its own write without reloading; a write of messages says which (`messages_written`), so the
model's latest messages of a channel follow it too, and any other write drops them. After the commit, the runner hands the new counts to the
store's listeners (`Changes.committed`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Change:
    """A guild's count after a committed write of this process, and whether the write touched what facts read."""

    guild_id: str
    count: int
    facts: bool
    fact_uuids: frozenset[str] | None = None  # with `facts`: only these facts and `entity_uuids` changed (None: unknown)
    entity_uuids: frozenset[str] = frozenset()  # entities or members written: the names of the facts naming them
    every: bool = False  # the write may have touched any guild: one missing from the changes is gone
    # the guild's messages the write created or edited (rows of graph/writes/messages.py, `edit` says which), when
    # they are all it changed of a channel's talk; None: it may have changed any channel's (its latest are read again)
    messages: tuple[Mapping[str, Any], ...] | None = None


@dataclass
class Declared:
    """What one attempt of a unit of work said it writes: guild ids (None: every guild), and whether facts."""

    guild_ids: set[str] | None = None
    facts: bool = False
    said: bool = False
    fact_uuids: set[str] | None = field(default_factory=set)
    entity_uuids: set[str] = field(default_factory=set)
    messages: list[Mapping[str, Any]] | None = field(default_factory=list)  # None: any channel's talk may have changed


DECLARED: ContextVar[Declared | None] = ContextVar("grapevine_declared_changes", default=None)


def touches(
    guild_ids: Iterable[str],
    *,
    facts: bool = True,
    fact_uuids: Iterable[str] | None = None,
    entity_uuids: Iterable[str] = (),
    messages: Iterable[Mapping[str, Any]] | None = None,
) -> None:
    """Inside a write transaction's work: it writes `guild_ids` (and, with `facts`, what a reply's facts read: only
    the facts `fact_uuids`, the entities `entity_uuids` and RELATED_TO links when it knows them; an extraction);
    with `messages`, of what a reply's conversation reads only those messages (more may follow: `messages_written`),
    without, anything of it."""
    declared = DECLARED.get()
    if declared is None:  # outside a runner's write (a test calling a writer's statement helper alone)
        return
    messages_written(messages)
    if not declared.said:
        declared.guild_ids, declared.said = set(), True
    if declared.guild_ids is not None:
        declared.guild_ids.update(guild_ids)
    if facts:
        declared.facts = True
        if fact_uuids is None or declared.fact_uuids is None:
            declared.fact_uuids = None
        else:
            declared.fact_uuids.update(fact_uuids)
            declared.entity_uuids.update(entity_uuids)


def messages_written(messages: Iterable[Mapping[str, Any]] | None) -> None:
    """Inside a write transaction's work: it created or edited `messages` (None: it changed messages it cannot list)."""
    declared = DECLARED.get()
    if declared is None or declared.messages is None:
        return
    if messages is None:
        declared.messages = None
    else:
        declared.messages.extend(messages)


def touches_every_guild() -> None:
    """Inside a write transaction's work: it may write any guild (what a unit that names none gets anyway)."""
    declared = DECLARED.get()
    if declared is not None:
        declared.guild_ids, declared.said, declared.facts, declared.fact_uuids = None, True, True, None
        declared.messages = None


Listener = Callable[[list[Change]], None]


@dataclass
class Changes:
    """The listeners told of this process's committed writes, in commit order (the writers' gate is held)."""

    listeners: list[Listener] = field(default_factory=list)

    def committed(self, changes: list[Change]) -> None:
        for listener in list(self.listeners):
            listener(changes)
