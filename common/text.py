"""Text rules every floor shares: the one name normaliser, the one Discord mention pattern, keywords for
full-text search, name matching and redaction."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

MENTION = re.compile(r"<@!?([0-9]+)>")  # a Discord user mention; the group is the user id (ASCII digits, as Discord writes it)
_ARTICLE = re.compile(r"^(?:the|a|an) ")
_NOT_WORD = re.compile(r"[\W_]+")
_WORD = re.compile(r"\w+", re.UNICODE)
MIN_SNOWFLAKE_DIGITS = 15  # the shortest Discord id
MAX_TERM_CHARS = 40  # longer runs of letters are not words anyone searches for, and no index takes them whole
_STOP = frozenset(
    "a an and are as at be but by did do does for from had has have he her him his how i if in is it its "
    "me my no not of on or our she so that the their them then there they this to too us was we were what "
    "when where which who why will with you your yes yeah ok lol just like about know think".split()
)


def name_key(name: str) -> str:
    """The key two names are the same by: casefolded words without accents, apostrophes, punctuation or a
    leading article ('The Celtics!' -> 'celtics', "Zoë's  Café" -> 'zoes cafe'); other scripts are kept."""
    text = "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))
    text = text.casefold().replace("'", "").replace("\u2019", "")
    return _ARTICLE.sub("", " ".join(_NOT_WORD.sub(" ", text).split()))


def content_words(text: str) -> list[str]:
    """The casefolded words of a text that can carry meaning (no stop words, numbers, single letters or runs
    longer than MAX_TERM_CHARS), repeats kept."""
    return [w for w in _WORD.findall(text.casefold()) if 1 < len(w) <= MAX_TERM_CHARS and w not in _STOP and not w.isdigit()]


@lru_cache(maxsize=1 << 16)  # pure, and the same few thousand words come back at every reply
def stem(word: str, plural_ing: bool = True) -> str:
    """A word without its common English inflection ("books", "camped", "camping", "painted" -> "book",
    "camp", "camp", "paint"), so a question and the fact that answers it match on the word, not its form.
    Only endings whose removal leaves a stem of three letters or more; "ss" (a class, to destress) is kept; with
    `plural_ing`, the plural of an "-ing" word loses both endings ("writings", "paintings" -> "writ", "paint")."""
    for suffix, replacement in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "s" and word.endswith("ss"):
                return word
            if suffix == "es" and not word.endswith(("shes", "ches", "xes", "sses", "zes")):
                continue  # "games" -> "game" (by "s"), but "watches" -> "watch"
            if suffix == "s" and word.endswith("ings") and plural_ing:
                return stem(word[:-1], plural_ing)  # "writings" -> "writing" -> "writ", as "writing" does
            return _base(word[: -len(suffix)] + replacement)
    return _base(word)


def _base(word: str) -> str:
    """ "runn" -> "run", "hike" -> "hik" (as "hiking" -> "hik"): one form for a doubled or silent ending."""
    if len(word) >= 4 and word[-1] == word[-2] and word[-1] not in "lsz":
        return word[:-1]
    return word[:-1] if len(word) >= 4 and word.endswith("e") else word


def document_terms(text: str, stems: bool = True, plural_ing: bool = True) -> tuple[str, ...]:
    """A text's content words as ranking compares them (recall.ranking): each by its `stem` with `stems`, repeats
    kept. Those of texts joined by a space are those of each text in turn, so a document's terms are made of its
    parts' (a fact's text and its subjects' names)."""
    words = content_words(text)
    return tuple(stem(w, plural_ing) for w in words) if stems else tuple(words)


def keywords(text: str, limit: int = 24) -> list[str]:
    """Distinct content words of a text, in order, for full-text search."""
    seen: dict[str, None] = {}
    for word in content_words(text):
        seen.setdefault(word, None)
        if len(seen) >= limit:
            break
    return list(seen)


_LUCENE_SYNTAX = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')
_LUCENE_OPERATORS = frozenset({"AND", "OR", "NOT", "TO"})


def lucene_escaped(term: str) -> str:
    """A term of a Lucene query that means only itself: every character of the query syntax escaped, and a term
    the parser would read as an operator (AND, OR, NOT, TO) too. The one escape of a user's words on their way to
    a full-text index."""
    escaped = _LUCENE_SYNTAX.sub(r"\\\1", term)
    return "\\" + escaped if escaped in _LUCENE_OPERATORS else escaped


def search_groups(text: str, limit: int = 24) -> list[str]:
    """The text's words as Lucene groups, one per whitespace-separated piece that holds a content word: the piece
    as written (the index's analyzer splits and lower-cases it as it did the stored text: "ab.cd", "Charlie's") or
    any of its content words ("charlie"), every term escaped (`lucene_escaped`). At most `limit` groups, repeats dropped."""
    groups: dict[str, None] = {}
    for piece in text.split():
        words = [w for w in dict.fromkeys(content_words(piece)) if any(c.isalnum() for c in w)]
        if not words:
            continue
        terms = dict.fromkeys([lucene_escaped(piece), *(lucene_escaped(w) for w in words)])
        groups.setdefault("(" + " OR ".join(terms) + ")", None)
        if len(groups) >= limit:
            break
    return list(groups)


def lucene_query(text: str, limit: int = 24) -> str:
    """A Lucene query matching any of the text's words (`search_groups`); '' when it holds none."""
    return " OR ".join(search_groups(text, limit))


def lucene_all(text: str, limit: int = 8) -> str:
    """A Lucene query matching every one of the text's words (`search_groups`); '' when it holds none."""
    return " AND ".join(search_groups(text, limit))


def normal(text: str) -> str:
    """The one form texts and names are compared in: Unicode NFKC (so "Zoë" typed as "e" and a combining mark,
    and a full-width "Ｚｏｅ", read as the same letters), case-folded."""
    return unicodedata.normalize("NFKC", text).casefold()


def search_forms(names: Iterable[str]) -> list[str]:
    """Each name in every form a stored text may hold it in (composed or not, compatibility forms or not), lower-
    cased as Cypher's toLower does and case-folded: what a `toLower(text) CONTAINS name` pre-filter in a query
    needs so that the text's normal form is not lost to it (the caller then matches in `normal` form)."""
    found = {
        variant
        for name in names
        if name
        for form in ("NFC", "NFD", "NFKC", "NFKD")
        for variant in (unicodedata.normalize(form, name).lower(), unicodedata.normalize(form, name).casefold())
    }
    return sorted(found)


def _pattern(names: Iterable[str]) -> re.Pattern[str] | None:
    folded = sorted({normal(n) for n in names if n and normal(n)}, key=len, reverse=True)
    return re.compile(rf"(?<!\w)(?:{'|'.join(map(re.escape, folded))})(?!\w)") if folded else None


def names_word(text: str, names: list[str]) -> bool:
    """Whether `text` contains one of `names` as a whole word, both compared in one normal form (`normal`)."""
    pattern = _pattern(names)
    return bool(pattern and pattern.search(normal(text)))


def _segments(text: str) -> tuple[str, list[int], list[int]]:
    """The text in normal form, with the span of the original each of its characters came from: a character and
    the combining marks after it are normalised together, so a match in normal form maps back to whole
    characters of the original."""
    if text.isascii():
        folded = text.lower()
        return folded, list(range(len(text))), list(range(1, len(text) + 1))
    starts = [i for i, c in enumerate(text) if i == 0 or not unicodedata.combining(c)]
    out: list[str] = []
    begin: list[int] = []
    end: list[int] = []
    for n, start in enumerate(starts):
        stop = starts[n + 1] if n + 1 < len(starts) else len(text)
        piece = normal(text[start:stop])
        out.append(piece)
        begin += [start] * len(piece)
        end += [stop] * len(piece)
    return "".join(out), begin, end


def _replace_names(text: str, names: list[str], replacement: str) -> str:
    pattern = _pattern(names)
    if pattern is None:
        return text
    folded, begin, end = _segments(text)
    spans = [(begin[m.start()], end[m.end() - 1]) for m in pattern.finditer(folded) if m.end() > m.start()]
    for start, stop in reversed(spans):
        text = text[:start] + replacement + text[stop:]
    return text


def redact(text: str, needles: list[str], replacement: str = "[forgotten]") -> str:
    """`text` with each of `needles` replaced: an id as the `<@id>` mention (and, when as long as a Discord id, as
    a bare number), a name as a whole word compared in normal form (`normal`); the rest of the text as written."""
    ids = [n for n in needles if n and n.isdigit()]
    for needle in sorted(ids, key=len, reverse=True):
        text = re.sub(rf"<@!?{re.escape(needle)}>", replacement, text)
        if len(needle) >= MIN_SNOWFLAKE_DIGITS:  # a bare id; "1" is a number, not someone
            text = re.sub(rf"(?<!\d){needle}(?!\d)", replacement, text)
    return _replace_names(text, [n for n in needles if n and not n.isdigit()], replacement)
