"""When a name alone identifies a member in what others wrote.

A forget or an export matches a member's names in plain text (not `<@id>` mentions, not graph edges) only where
the name is evidence of who is meant: not a word of English ("likes", "me", "the", "ok", "may", "hope"), not
shorter than MIN_NAME_CHARS nor longer than any name Discord allows, and (checked where the guild is known)
carried by no other member of that guild in any case ("Obi1" and "OBI1" are one name). What fails stays as it
was written: rewriting other people's words on a guess would touch what is not the member's.

A word of English is one `wordfreq` (word frequencies over many sources of real text) counts at least COMMON_ZIPF
on its Zipf scale, about once per million English words. Frequency alone would make every popular first name a
word ("Charlie" and "Sam" are more frequent than "kernel"), so a given name (Faker's first-name lists: at least
AGREEING_LISTS of them carry it) is a word only when English uses it ENGLISH_LEAD times as often as the
languages in OTHER_LANGUAGES do: a name is about as frequent in any language that writes it the same way, a
word of English is frequent in English alone ("Mark", "John" and "Bill" are names; "May", "Hope" and "June" are
words)."""

from __future__ import annotations

import functools
import importlib
import pkgutil
import statistics
import unicodedata
from collections import Counter
from collections.abc import Collection, Iterable

from faker.providers import person
from wordfreq import zipf_frequency
from wordfreq.tokens import tokenize

MIN_NAME_CHARS = 3  # "me", "ok", "Al": too short to tell a person from a word or a typo
MAX_NAME_CHARS = 32  # Discord's longest display name or nickname
COMMON_ZIPF = 3.0  # wordfreq's Zipf scale: 3 is once per million words, the foot of its "common" band
LANGUAGE = "en"  # the language whose words are common (the extraction prompt's, and the bot's)
OTHER_LANGUAGES = ("de", "es", "fr", "it", "nl", "pt")  # large corpora, names written in the same letters as English
ENGLISH_LEAD = 1.0  # on the Zipf scale, a factor of ten: English uses it ten times as often as the others (median)
AGREEING_LISTS = 2  # the largest lists also hold words people were once named ("Texas", "Media"), each in one list
_FIRST_NAMES = ("first_names", "first_names_male", "first_names_female", "first_names_nonbinary")
_PROSE_MARKS = ".,!?;:'\"()\u2026\u201c\u201d\u2018\u2019\u00ab\u00bb\u00a1\u00bf"  # what sits beside a word in a sentence


def fold(name: str) -> str:
    """The form two names are the same by: Unicode-normalised, case-folded, outer spaces gone."""
    return unicodedata.normalize("NFKC", name).casefold().strip()


@functools.cache
def given_names() -> frozenset[str]:
    """Every given name, folded: those at least AGREEING_LISTS of Faker's first-name lists carry (a list locales
    share counts once). Read once per process, when a forget or an export first asks (about 2 s)."""
    lists: Counter[str] = Counter()
    seen: set[int] = set()
    for found in pkgutil.iter_modules(person.__path__):
        provider = importlib.import_module(f"{person.__name__}.{found.name}").Provider
        names: set[str] = set()
        for attribute in _FIRST_NAMES:
            listed = getattr(provider, attribute, None)
            if isinstance(listed, Collection) and not isinstance(listed, str) and id(listed) not in seen:
                seen.add(id(listed))
                names.update(fold(str(n)) for n in listed)
        lists.update(names)
    return frozenset(n for n, count in lists.items() if count >= AGREEING_LISTS)


def _english_lead(folded: str, english: float) -> float:
    """How much more frequent the word is in English than in the other languages (their median, on the Zipf
    scale). A word absent from another language's list of common words counts at that list's floor, so the lead
    is never overstated."""
    others = [zipf_frequency(folded, lang, wordlist="small") or COMMON_ZIPF for lang in OTHER_LANGUAGES]
    return english - statistics.median(others)


@functools.lru_cache(maxsize=100_000)
def common_word(name: str) -> bool:
    """Whether the name, as written, is a word (or phrase) of ordinary English rather than a name only someone
    carries. A handle written with marks no word has ("|trey|", "Steve^", "nit-wit") is matched as written, so it
    is no word, whatever the words inside it."""
    folded = fold(name)
    if " ".join(tokenize(folded, LANGUAGE)) != folded:
        return False
    english = zipf_frequency(folded, LANGUAGE)
    if english < COMMON_ZIPF:
        return False
    return folded not in given_names() or _english_lead(folded, english) >= ENGLISH_LEAD


def identifying(name: str) -> bool:
    """Whether a name is specific enough to stand for its carrier in plain text (before asking who else carries
    it): of a sensible length and not a common word, once the marks a sentence puts beside a word are set aside
    ("ok!" reads as "ok")."""
    core = fold(name).strip(_PROSE_MARKS)
    return MIN_NAME_CHARS <= len(core) <= MAX_NAME_CHARS and any(c.isalnum() for c in core) and not common_word(core)


def identifying_names(names: Iterable[str], taken: Iterable[str] = ()) -> tuple[str, ...]:
    """Of `names`, those that identify their carrier where `taken` (folded) are the names others carry."""
    others = {fold(t) for t in taken}
    kept = {fold(n): n for n in sorted(n for n in names if n) if identifying(n) and fold(n) not in others}
    return tuple(sorted(kept.values()))
