"""A reply's reads on an open store: each statement of graph/reads/context.py (the reply's facts, the
conversation, the second round, the nearest facts), taking the store as every read of graph/ does."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, Concatenate, ParamSpec, TypeVar

from graph.reads import context
from graph.session import Runner
from graph.store import GraphStore

P = ParamSpec("P")
T = TypeVar("T")


def _on_store(
    read: Callable[Concatenate[Runner, P], Coroutine[Any, Any, T]],
) -> Callable[Concatenate[GraphStore, P], Coroutine[Any, Any, T]]:
    async def on(store: GraphStore, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await read(store.runner, *args, **kwargs)

    on.__name__, on.__doc__ = read.__name__, read.__doc__
    return on


reply_facts = _on_store(context.reply_facts)
conversation = _on_store(context.conversation)
second_round = _on_store(context.second_round)
nearest_facts = _on_store(context.nearest_facts)
