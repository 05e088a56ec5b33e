"""The order of one guild's full-text matches. The engine's score weighs each word by how rarely every text of the
index holds it, and each text by the average length of all of them: every guild's texts, so a small guild's
matches came in another order once a big guild shared the engine. Its matches are ordered here by what only they
and the words asked hold."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from common.text import content_words, normal

T = TypeVar("T")


def _asked(text: str) -> list[set[str]]:
    """The words asked as the search's groups (common.text.search_groups): a piece as written or any of its words."""
    groups = [{normal(piece), *content_words(piece)} for piece in text.split() if content_words(piece)]
    return [g for n, g in enumerate(groups) if g not in groups[:n]]


def _words(texts: Iterable[str]) -> tuple[set[str], int]:
    words = [w for text in texts for w in (*normal(text).split(), *content_words(text))]
    return set(words), len(content_words(" ".join(texts)))


def in_guild_order(
    found: list[T], asked: str, texts: Callable[[T], Iterable[str]], key: Callable[[T], str], limit: int
) -> list[T]:
    """`found` (one guild's matches of the words `asked`) best first: the most of the words asked a match holds,
    then the one of fewest words (the words asked are more of it), then by `key`; the first `limit` of them."""
    groups = _asked(asked)

    def order(item: T) -> tuple[int, int, str]:
        held, length = _words(list(texts(item)))
        return (-sum(1 for g in groups if g & held), length, key(item))

    return sorted(found, key=order)[: max(limit, 0)]
