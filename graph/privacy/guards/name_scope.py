"""Where a member's names stand for them: the scope of a forget or an export in plain text.

Their id (a `<@id>` mention, or the id itself) is theirs wherever it is written. Their names are matched only in
the guilds they belong or belonged to (a membership, or their messages or facts there), never in another
member's DM space, and only the names that identify them there (common/names.py): every name the account and
any membership carried, less the common words of any supported language (whatever the guild mostly writes: a
minority writes its own), the too short, and those another member of that guild carries.
A guild with no such name is in scope for their id only."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from common.names import fold, identifying, identifying_names
from common.text import name_key, names_word
from graph.models import dm_scope
from graph.session import Tx, run

Run = Callable[..., Awaitable[list[dict[str, Any]]]]  # graph.session.run, or a caller's that counts statements


@dataclass(frozen=True)
class NameScope:
    user_id: str
    guilds: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # guild id -> names identifying them there
    withheld: tuple[str, ...] = ()  # names they carry that are matched nowhere (common, short, or shared)

    def names(self, guild_id: str | None) -> tuple[str, ...]:
        return self.guilds.get(guild_id or "", ())

    def every_name(self) -> list[str]:
        return sorted({n for names in self.guilds.values() for n in names})

    def needles(self, guild_id: str | None) -> list[str]:
        """What is redacted in that guild's texts: their id, and their names there."""
        return [self.user_id, *self.names(guild_id)]

    def names_it(self, text: str, guild_id: str | None, key: str = "") -> bool:
        """Whether a text of that guild carries their id, or one of their names there as a whole word (in a
        name key, also as the possessive "<name>s")."""
        if self.user_id in text:
            return True
        names = list(self.names(guild_id))
        if key == "name_key":
            return names_word(text, [k for n in names for k in (name_key(n), name_key(n) + "s") if k])
        return names_word(text, names)

    def only(self, guild_id: str) -> NameScope:
        return NameScope(self.user_id, {guild_id: self.names(guild_id)}, self.withheld)

    def merged(self, other: NameScope | None) -> NameScope:
        """With the guilds and names of `other` too (a request kept from an earlier run, the account gone since)."""
        if other is None:
            return self
        guilds = {g: tuple(sorted({*self.names(g), *other.names(g)})) for g in {*self.guilds, *other.guilds}}
        return NameScope(self.user_id, guilds, tuple(sorted({*self.withheld, *other.withheld})))

    def to_json(self) -> dict[str, Any]:
        return {"guilds": {g: list(n) for g, n in sorted(self.guilds.items())}, "withheld": list(self.withheld)}

    @classmethod
    def from_json(cls, user_id: str, data: Mapping[str, Any] | None) -> NameScope | None:
        if not data:
            return None
        # a request kept under an earlier rule may hold a name the rule now takes for a word: it is withheld
        kept = {str(g): [str(n) for n in names] for g, names in (data.get("guilds") or {}).items()}
        guilds = {g: tuple(n for n in names if identifying(n)) for g, names in kept.items()}
        words = {n for names in kept.values() for n in names if not identifying(n)}
        return cls(user_id, guilds, tuple(sorted({*(str(n) for n in data.get("withheld") or ()), *words})))


@dataclass(frozen=True)
class Identity:
    """What the graph holds of who a member is (store/member_identity.cypher)."""

    user_id: str
    account_names: tuple[str, ...] = ()  # every account and global display name, the latest included
    guild_names: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # guild id -> nicknames carried there
    guilds: tuple[str, ...] = ()  # guilds they belong or belonged to, DM spaces left out

    @property
    def stored(self) -> bool:
        return bool(self.account_names or self.guilds)

    def names(self, known: Iterable[str] = ()) -> list[str]:
        """Every name they carried: account and display names, and their nickname in any guild (one known to a
        guild as "NightOwl" elsewhere is still theirs where they are "kim")."""
        return sorted({*self.account_names, *(n for names in self.guild_names.values() for n in names), *(n for n in known if n)})


async def identity(tx: Tx, user_id: str, run: Run = run) -> Identity:
    rows = await run(tx, "store/member_identity", user_id=user_id)
    if not rows:
        return Identity(user_id)
    row = rows[0]
    account = {n for n in (row["name"], row["display_name"], *row["names"]) if n}
    by_guild: dict[str, set[str]] = {}
    for membership in row["memberships"]:
        by_guild.setdefault(str(membership["guild_id"]), set()).update(n for n in membership["names"] if n)
    guilds = {*by_guild, *(str(g) for g in row["message_guilds"] if g), *(str(g) for g in row["fact_guilds"] if g)}
    return Identity(
        user_id,
        tuple(sorted(account)),
        {g: tuple(sorted(n)) for g, n in by_guild.items()},
        tuple(sorted(g for g in guilds if not g.startswith("dm:"))),
    )


async def taken(tx: Tx, user_id: str, guild_id: str, names: Sequence[str], run: Run = run) -> set[str]:
    """Which of `names` another member of the guild carries (folded)."""
    lowered = sorted({n.lower() for n in names})
    rows = await run(tx, "store/names_taken", guild_id=guild_id, user_id=user_id, names=lowered) if lowered else []
    found = {str(r["carried"]) for r in rows}
    return {fold(n) for n in names if n.lower() in found}


async def name_scope(
    tx: Tx, user_id: str, guild_id: str | None = None, known: Sequence[str] = (), *, run: Run = run
) -> NameScope:
    """The member's scope now: every guild of theirs (or only `guild_id`, a moderator's), with the names that
    identify them there; `known` are names Discord gave for them (the request's)."""
    who = await identity(tx, user_id, run)
    guilds = [guild_id] if guild_id is not None else list(who.guilds)
    scope: dict[str, tuple[str, ...]] = {}
    withheld: set[str] = set()
    for guild in guilds:
        if guild == dm_scope(user_id):
            continue  # their own DM space goes whole
        if guild not in who.guilds:
            scope[guild] = ()  # a guild they never belonged to (a moderator's forget there): their id only
            continue
        names = who.names(known)
        candidates = [n for n in names if identifying(n)]
        others = await taken(tx, user_id, guild, candidates, run) if candidates else set()
        scope[guild] = identifying_names(candidates, others)
        withheld.update(names)
    used = {n for names in scope.values() for n in names}
    return NameScope(user_id, scope, tuple(sorted(withheld - used)))
