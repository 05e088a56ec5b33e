"""Member text quoted into a prompt (names, messages, facts): it must not open or close the prompt's sections in
any spelling. A model reads `</memory>` in many forms: spaced (`</ memory>`), full-width (`＜／memory＞`), as
HTML entities (`&lt;/memory&gt;`), with invisible characters inside (a zero-width space in `memory`), with look-alike
brackets (`‹/memory›`) or letters. So a text is checked in its normal form (entities decoded, NFKC, format
characters removed, look-alike brackets made `<` and `>`), and when a tag of any name shows there, that normal
form is quoted with every tag's opening bracket made `(`: no tag is left in any spelling. Text without a tag is
quoted as it was written."""

from __future__ import annotations

import html
import re
import unicodedata

# The bracket that opens a tag, opening or closing, of any name; not Discord's animated emoji or timestamps
# (`<a:name:id>`, `<t:1700000000:R>`), which are no section of any prompt.
_TAG = re.compile(r"<(?!a:\w{1,32}:\d+>|t:-?\d+(?::[tTdDfFR])?>)(?=\s*/?\s*[^\W\d_])")
_OPENING = "‹〈⟨《❮❰⧼⦉﹤＜˂"
_CLOSING = "›〉⟩》❯❱⧽⦊﹥＞˃"
# What can become `<` in the normal form: itself, an entity, a look-alike bracket, or what NFKC makes one of
# (U+2329, U+FE3D, U+FE3F). A text without any of these holds no tag, and is not normalised at all.
LESS_THAN_SOURCES = re.compile("[<&" + _OPENING + "\u2329\ufe3d\ufe3f]")


class _Reading(dict[int, int | str | None]):
    """The `str.translate` table of the normal form's last step: look-alike brackets made `<` and `>`, format
    characters (category Cf: zero-width spaces and joiners, bidi controls, soft hyphens) dropped; filled as
    characters are met."""

    def __missing__(self, code: int) -> int | None:
        kept = None if unicodedata.category(chr(code)) == "Cf" else code
        self[code] = kept
        return kept


_READING = _Reading({**{ord(c): "<" for c in _OPENING}, **{ord(c): ">" for c in _CLOSING}})
_ENTITY_ROUNDS = 3  # `&amp;lt;` is `&lt;` once decoded, and a model may decode it again


def normal_form(text: str) -> str:
    """`text` as a model may read it: entities decoded, NFKC, format characters dropped, look-alike brackets
    made `<` and `>`."""
    for _ in range(_ENTITY_ROUNDS):
        if "&" not in text:
            break
        text = html.unescape(text)
    return unicodedata.normalize("NFKC", text).translate(_READING)


def has_tag(text: str) -> bool:
    """Whether a tag of any name, opening or closing, shows in some spelling of `text`."""
    if not LESS_THAN_SOURCES.search(text):
        return False  # the common case, decided without normalising
    return _TAG.search(normal_form(text)) is not None


def untagged(text: str) -> str:
    """`text` quoted so that it opens and closes nothing: as written when no tag shows in it; else its normal
    form with each tag's `<` made `(` (`</memory>` -> `(/memory>`)."""
    if not has_tag(text):
        return text
    return _TAG.sub("(", normal_form(text))
