"""When a name alone identifies a member in what others wrote.

A forget or an export matches a member's names in plain text (not `<@id>` mentions, not graph edges) only where
the name is evidence of who is meant: not a word of the language ("likes", "me", "the", "ok", "Charlie"), not
shorter than MIN_NAME_CHARS nor longer than any name Discord allows, and (checked where the guild is known)
carried by no other member of that guild in any case ("Obi1" and "OBI1" are one name). What fails stays as it
was written: rewriting other people's words on a guess would touch what is not the member's.

Common words come from `wordfreq` (frequencies of words in many sources of real text): a name used at least
COMMON_ZIPF on its Zipf scale (about once per million words) in English is a word, not an identity."""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Iterable

from wordfreq import zipf_frequency

MIN_NAME_CHARS = 3  # "me", "ok", "Al": too short to tell a person from a word or a typo
MAX_NAME_CHARS = 32  # Discord's longest display name or nickname
COMMON_ZIPF = 3.0  # wordfreq's Zipf scale: 3 is once per million words, the foot of its "common" band
LANGUAGE = "en"  # the language whose words are common (the extraction prompt's, and the bot's)


def fold(name: str) -> str:
    """The form two names are the same by: Unicode-normalised, case-folded, outer spaces gone."""
    return unicodedata.normalize("NFKC", name).casefold().strip()


@functools.lru_cache(maxsize=100_000)
def common_word(name: str) -> bool:
    """Whether the name is a word (or phrase) of ordinary language rather than a name only someone carries."""
    return zipf_frequency(fold(name), LANGUAGE) >= COMMON_ZIPF


def identifying(name: str) -> bool:
    """Whether a name is specific enough to stand for its carrier in plain text (before asking who else carries
    it): of a sensible length and not a common word."""
    folded = fold(name)
    return MIN_NAME_CHARS <= len(folded) <= MAX_NAME_CHARS and any(c.isalnum() for c in folded) and not common_word(folded)


def identifying_names(names: Iterable[str], taken: Iterable[str] = ()) -> tuple[str, ...]:
    """Of `names`, those that identify their carrier where `taken` (folded) are the names others carry."""
    others = {fold(t) for t in taken}
    kept = {fold(n): n for n in sorted(n for n in names if n) if identifying(n) and fold(n) not in others}
    return tuple(sorted(kept.values()))
