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
from importlib.metadata import version
from pathlib import Path
from typing import Any, Protocol

from common.text import normal
from common.user_cache import cache_dir, cached

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
_CURLY_QUOTES = "\u02bc\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f"  # what wordfreq straightens before a lookup
_PROSE_MARKS = ".,!?;:'\"()\u2026\u201c\u201d\u2018\u2019\u00ab\u00bb\u00a1\u00bf"  # what sits beside a word in a sentence


def fold(name: str) -> str:
    """The form two names are the same by: the one normal form texts are compared in, outer spaces gone."""
    return normal(name).strip()


class WordLists(Protocol):
    """What the rule reads of the word and name lists."""

    def zipf(self, word: str, language: str, wordlist: str) -> float:
        """wordfreq's `zipf_frequency` of the word (or phrase), wherever it is at least COMMON_ZIPF."""
        ...

    def given_names(self) -> frozenset[str]: ...

    def known_word(self, word: str, language: str) -> bool | None:
        """Whether a single plain word is a word of `language`, where decided beforehand; None elsewhere."""
        ...

    def telling(self, word: str) -> str | None:
        """The candidate language the word tells, if any."""
        ...


class Installed:
    """The lists as wordfreq and Faker ship them, read whole (about 2 s for every candidate language)."""

    def zipf(self, word: str, language: str, wordlist: str) -> float:
        from wordfreq import zipf_frequency

        return zipf_frequency(word, language, wordlist=wordlist)

    def given_names(self) -> frozenset[str]:
        return _installed_given_names()

    def known_word(self, word: str, language: str) -> bool | None:
        return None

    def telling(self, word: str) -> str | None:
        return _telling(word)


@functools.cache
def _installed_given_names() -> frozenset[str]:
    """Every given name, folded: those at least AGREEING_LISTS of Faker's first-name lists carry (a list locales
    share counts once)."""
    from faker.providers import person

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


@functools.cache
def _frequencies(language: str) -> dict[str, float]:
    from wordfreq import get_frequency_dict

    return get_frequency_dict(language, wordlist="small")


@functools.lru_cache(maxsize=100_000)
def _telling(word: str) -> str | None:
    """The language a word tells, if it is common in one candidate and far less common in every other."""
    zipfs = sorted(((_zipf(_frequencies(lang).get(word, 0.0)), lang) for lang in CANDIDATE_LANGUAGES), reverse=True)
    (best, language), (second, _) = zipfs[0], zipfs[1]
    return language if best >= TELLING_ZIPF and best - second >= TELLING_MARGIN else None


def _zipf(frequency: float) -> float:
    return math.log10(frequency) + 9 if frequency > 0 else 0.0


class Cached:
    """The same lists cut to what the rule can use, kept in the user's cache folder (common/user_cache.py) and
    read per part, when first asked: the given names, the telling words, and per language the words of at least
    COMMON_ZIPF. A word below it is no word of the language for the rule, alone or in a phrase (a phrase is
    rarer than each of its words), so its frequency is not kept. Each file is keyed by the versions of wordfreq
    and Faker and by the settings that shaped it."""

    def __init__(self, folder: Path | None = None, source: Installed | None = None) -> None:
        self.folder = folder
        self.source = source or Installed()
        self._tables: dict[tuple[str, str], dict[str, float]] = {}
        self._given: frozenset[str] | None = None
        self._told: dict[str, frozenset[str]] | None = None
        self._words: dict[str, frozenset[str]] = {}

    def key(self) -> dict[str, Any]:
        return {
            "format": 1,
            "wordfreq": version("wordfreq"),
            "faker": version("faker"),
            "common_zipf": COMMON_ZIPF,
            "candidates": list(CANDIDATE_LANGUAGES),
            "telling": [TELLING_ZIPF, TELLING_MARGIN],
            "first_names": [AGREEING_LISTS, *_FIRST_NAMES],
        }

    def path(self, part: str) -> Path:
        return (self.folder or cache_dir() / "names") / f"{part}.json"

    def zipf(self, word: str, language: str, wordlist: str) -> float:
        if language not in CANDIDATE_LANGUAGES:
            return self.source.zipf(word, language, wordlist)
        from wordfreq import freq_to_zipf, zipf_to_freq
        from wordfreq.numbers import digit_freq, smash_numbers
        from wordfreq.tokens import lossy_tokenize

        # wordfreq's own lookup (zipf_frequency, word_frequency) over the cut list
        frequencies = self._table(language, wordlist)
        tokens = lossy_tokenize(word, language)
        inverse = 0.0
        for token in tokens:
            smashed = smash_numbers(token)
            if smashed not in frequencies:
                return 0.0
            frequency = frequencies[smashed] * (digit_freq(token) if smashed != token else 1.0)
            inverse += 1.0 / frequency
        least = zipf_to_freq(0.0)
        unrounded = max(1.0 / inverse, least) if tokens else least
        rounded = round(unrounded, math.floor(-math.log(unrounded, 10)) + 3)
        return round(freq_to_zipf(rounded), 2)

    def _table(self, language: str, wordlist: str) -> dict[str, float]:
        found = self._tables.get((language, wordlist))
        if found is None:
            from wordfreq import cB_to_freq

            bands = cached(
                self.path(f"{wordlist}-{language}"), self.key(), lambda: [_joined(b) for b in _cut(language, wordlist)], _bands
            )
            found = self._tables[(language, wordlist)] = {}
            for i, band in enumerate(bands):
                found.update(dict.fromkeys(band, cB_to_freq(-i)))
        return found

    def known_word(self, word: str, language: str) -> bool | None:
        """Decided beforehand for every word the list holds: whether the rule takes it for a word of the
        language; a word it does not hold is none. A phrase or a word with digits is looked up (None). A plain
        word is decided here without tokenizing it: whatever the tokenizer makes of it, either it is the word
        itself, looked up as written, or the rule finds no word in it."""
        if language not in CANDIDATE_LANGUAGES:
            return None
        if not _plain(word):
            from wordfreq.numbers import smash_numbers
            from wordfreq.tokens import lossy_tokenize

            if lossy_tokenize(word, language) != [word] or smash_numbers(word) != word:
                return None
        words = self._words.get(language)
        if words is None:
            decided = cached(
                self.path(f"words-{language}"), self.key(), lambda: _joined(_words_of(language, self.source)), _words
            )
            words = self._words[language] = frozenset(decided)
        return word in words

    def given_names(self) -> frozenset[str]:
        if self._given is None:
            names = cached(self.path("given-names"), self.key(), lambda: _joined(sorted(self.source.given_names())), _words)
            self._given = frozenset(names)
        return self._given

    def telling(self, word: str) -> str | None:
        if self._told is None:
            told = cached(
                self.path("telling-words"), self.key(), lambda: {k: _joined(v) for k, v in _told().items()}, _by_language
            )
            self._told = {language: frozenset(words) for language, words in told.items()}
        return next((language for language, words in self._told.items() if word in words), None)


def _cut(language: str, wordlist: str) -> list[list[str]]:
    """The list's bands (band i: a frequency of 10^(-i/100)) down to the last at least COMMON_ZIPF."""
    from wordfreq import cB_to_freq, freq_to_zipf, get_frequency_list

    bands = get_frequency_list(language, wordlist)
    kept = [i for i in range(len(bands)) if round(freq_to_zipf(cB_to_freq(-i)), 2) >= COMMON_ZIPF]
    return [list(band) for band in bands[: max(kept, default=-1) + 1]]


def _plain(word: str) -> bool:
    """One run of characters, none that wordfreq's lookup rewrites (digits, curly quotes)."""
    return not any(c.isspace() or c.isdigit() or c in _CURLY_QUOTES for c in word)


def _words_of(language: str, source: Installed) -> list[str]:
    """The words of `language` for the rule: of those at least COMMON_ZIPF, each the rule takes for one."""
    return [w for band in _cut(language, "best") for w in band if word_of(w, language, source)]


def _told() -> dict[str, list[str]]:
    """Every telling word, by the language it tells (as `_telling` decides, in one pass over the lists): a
    telling word is at least TELLING_ZIPF in some candidate."""
    scale = functools.cache(_zipf)  # a list holds a few hundred distinct frequencies
    common = {w for lang in CANDIDATE_LANGUAGES for w, f in _frequencies(lang).items() if scale(f) >= TELLING_ZIPF}
    zipfs: dict[str, list[tuple[float, str]]] = {}
    for lang in CANDIDATE_LANGUAGES:
        for word, frequency in _frequencies(lang).items():
            if word in common:
                zipfs.setdefault(word, []).append((scale(frequency), lang))
    told: dict[str, list[str]] = {}
    for word, found in sorted(zipfs.items()):
        found.sort(reverse=True)
        best, language = found[0]
        second = found[1][0] if len(found) > 1 else 0.0  # a candidate without the word counts 0
        if best >= TELLING_ZIPF and best - second >= TELLING_MARGIN:
            told.setdefault(language, []).append(word)
    return told


def _joined(words: list[str]) -> str:
    """Words as stored: one string, a word a line (JSON reads one long string far faster than many short ones)."""
    return "\n".join(words)


def _words(data: Any) -> list[str] | None:
    return (data.split("\n") if data else []) if isinstance(data, str) else None


def _bands(data: Any) -> list[list[str]] | None:
    return [_words(b) or [] for b in data] if isinstance(data, list) and all(isinstance(b, str) for b in data) else None


def _by_language(data: Any) -> dict[str, list[str]] | None:
    if not isinstance(data, dict) or not all(lang in CANDIDATE_LANGUAGES and isinstance(w, str) for lang, w in data.items()):
        return None
    return {lang: _words(w) or [] for lang, w in data.items()}


LISTS: WordLists = Cached()


def given_names() -> frozenset[str]:
    """Every given name, folded: those at least AGREEING_LISTS of Faker's first-name lists carry (a list locales
    share counts once)."""
    return LISTS.given_names()


def _lead(folded: str, language: str, frequency: float, lists: WordLists) -> float:
    """How much more frequent the word is in `language` than in the other reference languages (their median, on
    the Zipf scale). A word absent from another language's list of common words counts at that list's floor, so
    the lead is never overstated."""
    others = [lists.zipf(folded, lang, "small") or COMMON_ZIPF for lang in REFERENCE_LANGUAGES if lang != language]
    return frequency - statistics.median(others)


def word_of(folded: str, language: str, lists: WordLists | None = None) -> bool:
    """Whether `folded` is a word of `language`. Other languages' corpora carry English and the names of popular
    culture at Zipf 3 ("zorro" in Italian), so there every word must lead as a given name does in English."""
    lists = lists or LISTS
    if _plain(folded) and (known := lists.known_word(folded, language)) is not None:
        return known
    from wordfreq.tokens import tokenize

    if " ".join(tokenize(folded, language)) != folded:
        return False
    known = lists.known_word(folded, language)
    if known is not None:
        return known
    frequency = lists.zipf(folded, language, "best")
    if frequency < COMMON_ZIPF:
        return False
    given = folded in lists.given_names()
    if language == LANGUAGE and not given:
        return True
    if language != LANGUAGE and given and frequency < EVERYDAY_ZIPF:
        return False  # a name of one country leads there as a word would ("Jürgen" in German)
    return _lead(folded, language, frequency, lists) >= LEAD


@functools.lru_cache(maxsize=100_000)
def common_word(name: str, languages: tuple[str, ...] = (LANGUAGE,)) -> bool:
    """Whether the name, as written, is a word (or phrase) of one of `languages` rather than a name only someone
    carries. A handle written with marks no word has ("|trey|", "Steve^", "nit-wit") is matched as written, so it
    is no word, whatever the words inside it."""
    folded = fold(name)
    return any(word_of(folded, language) for language in dict.fromkeys((LANGUAGE, *languages)))


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


def spoken_languages(texts: Iterable[str], lists: WordLists | None = None) -> tuple[str, ...]:
    """The languages a guild speaks, read from a sample of its texts: English always, and each candidate that at
    least SPOKEN_SHARE of the distinct telling words (and SPOKEN_MIN_WORDS of them) belong to; distinct, so a name
    said often that is a word somewhere ("sam" in Polish) makes no language."""
    lists = lists or LISTS
    words = {word for text in texts for word in _WORDS.findall(normal(text))}
    told = Counter(language for word in words if (language := lists.telling(word)) is not None)
    total = sum(told.values())
    spoken = {lang for lang, n in told.items() if n >= SPOKEN_MIN_WORDS and n >= SPOKEN_SHARE * total}
    return (LANGUAGE, *sorted(spoken - {LANGUAGE}))


def warm(language: str = LANGUAGE) -> None:
    """Build the cached lists the rule reads for `language` now (a forget or an export reads them), so the first
    forget after a fresh install does not pay for them."""
    spoken_languages(["warm"])
    common_word("warm", (language,))
    given_names()
