"""Members who share a display name, told apart: in a reply's context two reporters shown as "Alex" would read
as one person, so each is named with their account name too ("Alex (@alex.k)")."""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Awaitable, Callable, Sequence

from graph.models import FactView, User


def shared_names(facts: Sequence[FactView]) -> set[str]:
    """Ids of reporters whose display name another reporter of these facts also has."""
    ids_by_name: dict[str, set[str]] = defaultdict(set)
    for fact in facts:
        for user_id, name, _ in fact.reporters:
            ids_by_name[name.casefold()].add(user_id)
    return {i for ids in ids_by_name.values() if len(ids) > 1 for i in ids}


def label(user: User) -> str:
    return user.display_name if user.display_name == user.name else f"{user.display_name} (@{user.name})"


def renamed(fact: FactView, labels: dict[str, str]) -> FactView:
    if not any(i in labels for i, _, _ in fact.reporters):
        return fact
    reporters = tuple((i, labels.get(i, name), at) for i, name, at in fact.reporters)
    return dataclasses.replace(fact, reporters=reporters)


async def disambiguate(groups: list[list[FactView]], users: Callable[[list[str]], Awaitable[list[User]]]) -> list[list[FactView]]:
    """The same facts, with reporters who share a display name named apart (one read, only when some do)."""
    clash = shared_names([f for group in groups for f in group])
    if not clash:
        return groups
    labels = {u.id: label(u) for u in await users(sorted(clash))}
    return [[renamed(f, labels) for f in group] for group in groups]
