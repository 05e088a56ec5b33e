"""Text rules every floor shares: the one name normaliser, the one Discord mention pattern, keywords for
full-text search, name matching and redaction."""

from __future__ import annotations

import re
import unicodedata

MENTION = re.compile(r"<@!?(\d+)>")  # a Discord user mention; the group is the user id
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


def keywords(text: str, limit: int = 24) -> list[str]:
    """Distinct content words of a text, in order, for full-text search."""
    seen: dict[str, None] = {}
    for word in content_words(text):
        seen.setdefault(word, None)
        if len(seen) >= limit:
            break
    return list(seen)


def lucene_query(text: str, limit: int = 24) -> str:
    """A Lucene query matching any keyword; only word characters survive, so nothing is syntax."""
    return " OR ".join(keywords(text, limit))


def names_word(text: str, names: list[str]) -> bool:
    """Whether `text` contains one of `names` as a whole word, case-insensitively."""
    folded = text.casefold()
    for name in names:
        if name and re.search(rf"(?<!\w){re.escape(name.casefold())}(?!\w)", folded):
            return True
    return False


def redact(text: str, needles: list[str], replacement: str = "[forgotten]") -> str:
    for needle in sorted((n for n in needles if n), key=len, reverse=True):
        text = re.sub(
            rf"<@!?{re.escape(needle)}>" if needle.isdigit() else rf"(?<!\w){re.escape(needle)}(?!\w)",
            replacement,
            text,
            flags=re.IGNORECASE,
        )
        if needle.isdigit() and len(needle) >= MIN_SNOWFLAKE_DIGITS:  # a bare id; "1" is a number, not someone
            text = re.sub(rf"(?<!\d){needle}(?!\d)", replacement, text)
    return text
