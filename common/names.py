"""When a name alone identifies a member in what others wrote.

A forget or an export matches a member's names in plain text (not `<@id>` mentions, not graph edges) only where
the name is evidence of who is meant: not a word of a language the guild speaks ("likes", "me", "the", "ok",
"may", "hope"; "merci", "ciao" where French or Italian is spoken), not shorter than MIN_NAME_CHARS nor longer
than any name Discord allows, and (checked where the guild is known) carried by no other member of that guild in
any case ("Obi1" and "OBI1" are one name). What fails stays as it was written: rewriting other people's words on
a guess would touch what is not the member's.

The languages a guild speaks are read from its own text (`spoken_languages`): English, the bot's language,
always; and each of CANDIDATE_LANGUAGES that at least SPOKEN_SHARE of the sample's telling words belong to (a
telling word is common in one language and far less common in every other: "merci", "ciao", "nicht"). Any
fixed list would be wrong somewhere: "ben" is a word of Dutch and a name everywhere else.

A word of a language is one `wordfreq` (word frequencies over many sources of real text) counts at least
COMMON_ZIPF on its Zipf scale, about once per million words. Frequency alone would make every popular first name
a word ("Charlie" and "Sam" are more frequent than "kernel"), so a given name (Faker's first-name lists: at least
AGREEING_LISTS of them carry it) is a word of English only when English uses it LEAD times as often as the other
languages in REFERENCE_LANGUAGES do: a name is about as frequent in any language that writes it the same way, a
word is frequent in its own language alone ("Mark", "John" and "Bill" are names; "May", "Hope" and "June" are
words of English). Other languages' corpora also carry English and popular culture's names at that frequency
("zorro" in Italian), so there every word must lead so ("merci", "ciao" do), and a given name, which leads in
its own country as a word would ("Jürgen" in German), is a word there only if among its commonest, EVERYDAY_ZIPF
("ben" in Dutch)."""

from __future__ import annotations

import functools
import importlib
import math
import pkgutil
import re
import statistics
from collections import Counter
from collections.abc import Collection, Iterable

from faker.providers import person
from wordfreq import get_frequency_dict, zipf_frequency
from wordfreq.tokens import tokenize

from common.text import normal

MIN_NAME_CHARS = 3  # "me", "ok", "Al": too short to tell a person from a word or a typo
MAX_NAME_CHARS = 32  # Discord's longest display name or nickname
COMMON_ZIPF = 3.0  # wordfreq's Zipf scale: 3 is once per million words, the foot of its "common" band
LANGUAGE = "en"  # the bot's language (and the extraction prompt's): every guild speaks it
REFERENCE_LANGUAGES = ("en", "de", "es", "fr", "it", "nl", "pt")  # large corpora, names written in the same letters
LEAD = 1.0  # on the Zipf scale, a factor of ten: the language uses a given name ten times as often as the others (median)
EVERYDAY_ZIPF = 5.5  # a given name is a word of another language only if among its commonest ("ben" in Dutch)
CANDIDATE_LANGUAGES = ("en", "de", "es", "fr", "it", "nl", "pt", "pl", "sv", "da", "nb", "fi", "tr", "cs", "ro", "ru", "uk")
TELLING_ZIPF = 4.0  # a telling word: at least this common in one language (ten per million words) ...
TELLING_MARGIN = 1.0  # ... and ten times less common in every other candidate
SPOKEN_SHARE = 0.1  # a language is spoken where at least this share of the telling words are its own ...
LANGUAGE_SAMPLE = 500  # a guild's messages read to tell the languages it speaks
SPOKEN_MIN_WORDS = 5  # ... and at least this many different ones
AGREEING_LISTS = 2  # the largest lists also hold words people were once named ("Texas", "Media"), each in one list
_FIRST_NAMES = ("first_names", "first_names_male", "first_names_female", "first_names_nonbinary")
_WORDS = re.compile(r"[^\W\d_]{2,}")  # runs of letters: the words a language's list can hold
_PROSE_MARKS = ".,!?;:'\"()\u2026\u201c\u201d\u2018\u2019\u00ab\u00bb\u00a1\u00bf"  # what sits beside a word in a sentence


def fold(name: str) -> str:
    """The form two names are the same by: the one normal form texts are compared in, outer spaces gone."""
    return normal(name).strip()


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


def _lead(folded: str, language: str, frequency: float) -> float:
    """How much more frequent the word is in `language` than in the other reference languages (their median, on
    the Zipf scale). A word absent from another language's list of common words counts at that list's floor, so
    the lead is never overstated."""
    others = [zipf_frequency(folded, lang, wordlist="small") or COMMON_ZIPF for lang in REFERENCE_LANGUAGES if lang != language]
    return frequency - statistics.median(others)


def _word_of(folded: str, language: str) -> bool:
    """Whether `folded` is a word of `language`. Other languages' corpora carry English and the names of popular
    culture at Zipf 3 ("zorro" in Italian), so there every word must lead as a given name does in English."""
    if " ".join(tokenize(folded, language)) != folded:
        return False
    frequency = zipf_frequency(folded, language)
    if frequency < COMMON_ZIPF:
        return False
    given = folded in given_names()
    if language == LANGUAGE and not given:
        return True
    if language != LANGUAGE and given and frequency < EVERYDAY_ZIPF:
        return False  # a name of one country leads there as a word would ("Jürgen" in German)
    return _lead(folded, language, frequency) >= LEAD


@functools.lru_cache(maxsize=100_000)
def common_word(name: str, languages: tuple[str, ...] = (LANGUAGE,)) -> bool:
    """Whether the name, as written, is a word (or phrase) of one of `languages` rather than a name only someone
    carries. A handle written with marks no word has ("|trey|", "Steve^", "nit-wit") is matched as written, so it
    is no word, whatever the words inside it."""
    folded = fold(name)
    return any(_word_of(folded, language) for language in dict.fromkeys((LANGUAGE, *languages)))


def identifying(name: str, languages: tuple[str, ...] = (LANGUAGE,)) -> bool:
    """Whether a name is specific enough to stand for its carrier in plain text where `languages` are spoken
    (before asking who else carries it): of a sensible length and not a common word, once the marks a sentence
    puts beside a word are set aside ("ok!" reads as "ok")."""
    core = fold(name).strip(_PROSE_MARKS)
    return MIN_NAME_CHARS <= len(core) <= MAX_NAME_CHARS and any(c.isalnum() for c in core) and not common_word(core, languages)


def identifying_names(
    names: Iterable[str], taken: Iterable[str] = (), languages: tuple[str, ...] = (LANGUAGE,)
) -> tuple[str, ...]:
    """Of `names`, those that identify their carrier where `taken` (folded) are the names others carry and
    `languages` are spoken."""
    others = {fold(t) for t in taken}
    kept = {fold(n): n for n in sorted(n for n in names if n) if identifying(n, languages) and fold(n) not in others}
    return tuple(sorted(kept.values()))


@functools.cache
def _frequencies(language: str) -> dict[str, float]:
    return get_frequency_dict(language, wordlist="small")


@functools.lru_cache(maxsize=100_000)
def _telling(word: str) -> str | None:
    """The language a word tells, if it is common in one candidate and far less common in every other."""
    zipfs = sorted(((_zipf(_frequencies(lang).get(word, 0.0)), lang) for lang in CANDIDATE_LANGUAGES), reverse=True)
    (best, language), (second, _) = zipfs[0], zipfs[1]
    return language if best >= TELLING_ZIPF and best - second >= TELLING_MARGIN else None


def _zipf(frequency: float) -> float:
    return math.log10(frequency) + 9 if frequency > 0 else 0.0


def spoken_languages(texts: Iterable[str]) -> tuple[str, ...]:
    """The languages a guild speaks, read from a sample of its texts: English always, and each candidate that at
    least SPOKEN_SHARE of the distinct telling words (and SPOKEN_MIN_WORDS of them) belong to; distinct, so a name
    said often that is a word somewhere ("sam" in Polish) makes no language."""
    words = {word for text in texts for word in _WORDS.findall(normal(text))}
    told = Counter(language for word in words if (language := _telling(word)) is not None)
    total = sum(told.values())
    spoken = {lang for lang, n in told.items() if n >= SPOKEN_MIN_WORDS and n >= SPOKEN_SHARE * total}
    return (LANGUAGE, *sorted(spoken - {LANGUAGE}))
