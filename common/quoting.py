"""Member text quoted into a prompt (names, messages, facts, summaries): it must not open or close the prompt's
sections, nor speak the model's own control tokens, in any spelling.

Two kinds of markup are at stake. The prompt's own tags: a model reads `</memory>` in many forms, spaced
(`</ memory>`), full-width (`＜／memory＞`), as HTML entities (`&lt;/memory&gt;`), with invisible characters inside
(a zero-width space in `memory`), with look-alike brackets (`‹/memory›`) or letters. And the chat template's
control tokens, which an inference server (llama.cpp, vLLM, Ollama) may turn into real role boundaries when they
arrive as text: ChatML's `<|im_start|>`, Llama 3's `<|start_header_id|>`, Phi's `<|user|>`, every other
`<|...|>` (DeepSeek's full-width `<｜User｜>` once normalised), every `[|...|]` (EXAONE's `[|system|]`,
`[|endofturn|]`), Gemma's `<start_of_turn>`, `<s>`, `</s>` and Llama 2's `<<SYS>>` (tags by shape), the bracketed
words of Mistral, Llama 2 and Gemma 3 (`[INST]`, `[/INST]`, `[multimodal]`), and any bracketed upper-case word
shaped like one (`[END_OF_TURN]`, `[/TURN]`): neutralised by their shape, not only by a list.

So a text is checked in its normal form (entities decoded, NFKC, format and control characters removed, look-alike
brackets made `<` and `>`), and when a tag or a control token shows there, that normal form is quoted with the
opening bracket of each made `(`: `(/memory>`, `(|im_start|>`, `(INST]`. Still readable, and no tokenizer reads
it as a special token. Text without either is quoted as it was written. Every prompt builder quotes member text
through `untagged`."""

from __future__ import annotations

import html
import re
import unicodedata

# The bracket that opens a tag, opening or closing, of any name; not Discord's animated emoji or timestamps
# (`<a:name:id>`, `<t:1700000000:R>`), which are no section of any prompt.
_TAG = r"<(?!a:\w{1,32}:\d+>|t:-?\d+(?::[tTdDfFR])?>)(?=\s*/?\s*[^\W\d_])"
# Mistral's control words (v1 to tekken), Llama 2's `[INST]` and Gemma 3's `[multimodal]`; a plain `[WIP]` or
# `[OK]` is no token of any template
_BRACKETED = (
    "INST|SYSTEM_PROMPT|AVAILABLE_TOOLS|TOOL_CALLS|TOOL_RESULTS|TOOL_CONTENT|IMG|IMG_BREAK|IMG_END|PREFIX|MIDDLE"
    "|SUFFIX|THINK|ARGS|CALL_ID|MULTIMODAL"
)
# A template's control word no list names, by its shape (case counts: templates write them in capitals): an
# upper-case word with an underscore (`[END_OF_TURN]`), or one closed with a slash (`[/TURN]`)
_SHAPED_WORD = r"(?-i:[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|/\s*[A-Z]{2,})"
# What opens a tag or a control token, in the normal form: the character made `(`. Besides the tags and the words
# above, any `<|...|>` or `[|...|]` (EXAONE's `[|endofturn|]`), whatever its word: by shape, not by a list.
_OPENS = re.compile(
    rf"{_TAG}|<(?=\s*\|)|\[(?=\s*\|)|\[(?=\s*/?\s*(?:{_BRACKETED})\s*\])|\[(?=\s*{_SHAPED_WORD}\s*\])", re.IGNORECASE
)
_OPENING = "‹〈⟨《❮❰⧼⦉﹤＜˂"
_CLOSING = "›〉⟩》❯❱⧽⦊﹥＞˃"
# What can become `<` or `[` in the normal form: itself, an entity (its `&` as written, or as NFKC makes it from
# U+FE60, U+FF06), a look-alike bracket, or what NFKC makes one of (U+2329, U+FE3D, U+FE3F, U+FE47, U+FF3B). A text
# without any of these holds no tag and no control token, and is not normalised at all. A `[` before an ASCII digit
# opens no control word: the prompts' own time stamps (`[3 May 2024 18:04]`) are not looked at.
LESS_THAN_SOURCES = re.compile("[<&" + _OPENING + "\u2329\ufe3d\ufe3f\ufe47\uff3b\ufe60\uff06]|\\[(?![0-9])")
_LINE_BREAKS = re.compile("[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


class _Reading(dict[int, int | str | None]):
    """The `str.translate` table of the normal form's last step: look-alike brackets made `<` and `>`, format
    characters (category Cf: zero-width spaces and joiners, bidi controls, soft hyphens) and control characters
    other than white space dropped; filled as characters are met."""

    def __missing__(self, code: int) -> int | None:
        char = chr(code)
        category = unicodedata.category(char)
        kept = None if category == "Cf" or (category == "Cc" and not char.isspace()) else code
        self[code] = kept
        return kept


_READING = _Reading({**{ord(c): "<" for c in _OPENING}, **{ord(c): ">" for c in _CLOSING}})
_ROUNDS = 8  # `&amp;lt;` is `&lt;` once decoded, and a model may decode it again; NFKC can make a `&` (＆lt;)


def normal_form(text: str) -> str:
    """`text` as a model may read it: entities decoded, NFKC, format and control characters dropped, look-alike
    brackets made `<` and `>`; again while that changes an entity (so no entity is left to decode)."""
    for _ in range(_ROUNDS):
        while "&" in text and (decoded := html.unescape(text)) != text:
            text = decoded
        text = unicodedata.normalize("NFKC", text).translate(_READING)
        if "&" not in text or html.unescape(text) == text:
            break
    return text


def has_tag(text: str) -> bool:
    """Whether a tag of any name, opening or closing, or a chat template's control token shows in some spelling
    of `text`."""
    if not LESS_THAN_SOURCES.search(text):
        return False  # the common case, decided without normalising
    return _OPENS.search(normal_form(text)) is not None


def untagged(text: str) -> str:
    """`text` quoted so that it opens and closes nothing and holds no control token: as written when none shows
    in it; else, line by line, the normal form of each line that shows one with each opening bracket made `(`
    (`</memory>` -> `(/memory>`, `<|im_end|>` -> `(|im_end|>`, `[INST]` -> `(INST]`). A line stays one line: a
    line break its entities decode to (`&#10;`) is a space."""
    if not has_tag(text):
        return text
    return "\n".join(_OPENS.sub("(", _LINE_BREAKS.sub(" ", normal_form(line))) if has_tag(line) else line
                     for line in text.split("\n"))  # fmt: skip
